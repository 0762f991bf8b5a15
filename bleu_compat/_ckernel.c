/*
 * bleu_compat._ckernel: the whole-block fast path of `bleu-compat score` (issue 20).
 *
 * Functions on blocks of whole lines of UTF-8 text (every line ended by LF,
 * the last one possibly not), each the fast twin of a slower reference that
 * the tests compare it with (script_counts, on a str, is the script check's
 * pass, described where it is defined):
 *
 *   intl(data, punctuation, symbols, numbers, rstrip) -> bytes
 *       The tokens of every line under mteval-v14's international rules with
 *       the given character classes (sacreBLEU's intl, tensor2tensor's
 *       bleu_tokenize), written as tokenize() writes them (see "intl" below).
 *
 *   tokenize(data, mode) -> bytes
 *       The tokens of every line, as bleu_compat.tokenizers.reference gives
 *       them, written as bytes: a line's tokens joined by single spaces, every
 *       line ended by LF. mode 0 = 13a, mode 1 = zh, mode 2 = char.
 *
 *   counts(chunks, n_seg, max_order, per_segment, normalized=False) -> tuple
 *       BLEU's exact sufficient statistics of a block of line-aligned files
 *       (chunks[0] the hypotheses, chunks[1:] one block per reference file),
 *       tokens split as Python's str.split() splits them: matches and totals
 *       per order, the hypothesis length and the closest reference length
 *       (ties to the shorter), as bleu_compat.fast.python_counts computes them.
 *
 * The whitespace of str.split() is the 29 code points of str.isspace(); in
 * UTF-8 those are the bytes 0x09-0x0D, 0x1C-0x20 and the sequences of U+0085,
 * U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000
 * (ws_len below). 13a's four substitutions test ASCII characters only, so
 * they are run on the bytes; each is a left-to-right scan of non-overlapping
 * two-character (or one-character) matches, which is what a regular
 * expression substitution of a fixed-length pattern does.
 *
 * Memory: the block, its output, and per segment arrays linear in its tokens.
 * The input is trusted to be UTF-8 (the reading rules check it first); on any
 * other bytes the functions stay within the buffers and return some tokens.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------ characters */

/* Bytes of the str.isspace() character at p (0 if there is none). */
static inline Py_ssize_t ws_len(const unsigned char *p, const unsigned char *end)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return (c == 0x20 || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)) ? 1 : 0;
    if (c == 0xC2)
        return (end - p >= 2 && (p[1] == 0x85 || p[1] == 0xA0)) ? 2 : 0;
    if (c == 0xE1)
        return (end - p >= 3 && p[1] == 0x9A && p[2] == 0x80) ? 3 : 0;
    if (c == 0xE2) {
        if (end - p < 3)
            return 0;
        if (p[1] == 0x80 && ((p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 || p[2] == 0xA9
                             || p[2] == 0xAF))
            return 3;
        return (p[1] == 0x81 && p[2] == 0x9F) ? 3 : 0;
    }
    if (c == 0xE3)
        return (end - p >= 3 && p[1] == 0x80 && p[2] == 0x80) ? 3 : 0;
    return 0;
}

/* Bytes of the UTF-8 character starting at p (1 for a stray byte; never past end). */
static inline Py_ssize_t char_len(const unsigned char *p, const unsigned char *end)
{
    unsigned char c = p[0];
    Py_ssize_t n = c < 0x80 ? 1 : c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF8 ? 4 : 1;
    if (n > end - p)
        n = end - p;
    for (Py_ssize_t k = 1; k < n; k++)
        if ((p[k] & 0xC0) != 0x80)
            return k;
    return n;
}

static inline uint32_t code_point(const unsigned char *p, Py_ssize_t n)
{
    switch (n) {
    case 2: return ((uint32_t)(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
    case 3: return ((uint32_t)(p[0] & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
    case 4: return ((uint32_t)(p[0] & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12)
                   | ((uint32_t)(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
    default: return p[0];
    }
}

/* The ranges zh separates (bleu_compat.tokenizers.reference.ZH_RANGES: keep equal; a test
 * compares every code point). */
static const uint32_t ZH[][2] = {
    {0x2001, 0x2A6D}, {0x2E80, 0x2EFF}, {0x2F00, 0x2FDF}, {0x2F81, 0x2FA1}, {0x2FF0, 0x2FFF},
    {0x3000, 0x303F}, {0x3100, 0x312F}, {0x31A0, 0x31BF}, {0x31C0, 0x31EF}, {0x3200, 0x32FF},
    {0x3300, 0x33FF}, {0x3400, 0x4DB5}, {0x4E00, 0x9FA5}, {0x9FA6, 0x9FBB}, {0xF900, 0xFA2D},
    {0xFA30, 0xFA6A}, {0xFA70, 0xFAD9}, {0xFE10, 0xFE1F}, {0xFE30, 0xFE4F}, {0xFF00, 0xFFEF},
};

static int is_zh(uint32_t cp)
{
    for (size_t k = 0; k < sizeof(ZH) / sizeof(ZH[0]); k++)
        if (cp >= ZH[k][0] && cp <= ZH[k][1])
            return 1;
    return 0;
}

/* ------------------------------------------------------------------ tokenizing */

/*
 * 13a's four substitutions in one pass over a line's bytes.
 *
 * The substitutions each insert spaces; the tokens are what is between them.
 * Which boundaries get a space follows from the rules (mteval-v13a.pl), as the
 * scans of non-overlapping matches make them:
 *
 *  - a character of 13a's punctuation class gets spaces on both sides (rule 1);
 *  - a hyphen right after a digit gets spaces on both sides (rule 4: rules 1-3
 *    put spaces only next to periods, commas and rule 1's characters, so a digit
 *    and a hyphen that are neighbours in the line are neighbours for rule 4);
 *  - a period or comma P ("dot"): rule 2 (non-digit X, then P) scans a run of
 *    dots p1 p2 ... left to right: p1 is matched as the second character when
 *    the character before the run is a non-digit (13a's padding space counts
 *    as one; zh has no padding, and at a line's start nothing comes before),
 *    and the matches then alternate: p1, p3, p5, ... or, after a digit (or at
 *    zh's line start), p2, p4, ... A matched dot has spaces on both sides, and
 *    so does every dot of a pair (p_k, p_k+1) rule 2 matched with p_k as X.
 *    After rule 2 a dot that was not matched as the second character is
 *    followed by a space or by the character that followed it in the line, so
 *    rule 3 (P, then a non-digit) matches it unless that character is a digit
 *    (or, in zh, there is none: the end of the stripped line). Hence: a dot is
 *    separated from both neighbours, unless it is not rule 2's second character
 *    and a digit follows (or zh's line ends): then it stays attached to what
 *    follows, and to a digit before it.
 *
 * The test suite compares this with the reference (the substitutions done as
 * regular expressions) on every string of up to 6 characters from the
 * characters that matter, and on the real corpora.
 */

enum { MODE_13A = 0, MODE_ZH = 1, MODE_CHAR = 2 };

/* byte classes */
enum { C_WS = 1, C_PUNCT = 2, C_DIGIT = 4, C_DOT = 8, C_DASH = 16, C_HIGH = 32, C_WSLEAD = 64 };
static unsigned char CLS[256];

static void init_classes(void)
{
    for (int c = 0; c < 256; c++) {
        unsigned char k = 0;
        if (c == 0x20 || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F))
            k |= C_WS;
        if ((c >= 0x21 && c <= 0x26) || (c >= 0x28 && c <= 0x2B) || c == 0x2F
            || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E))
            k |= C_PUNCT;  /* 13a's class without the space (a space is whitespace anyway) */
        if (c >= '0' && c <= '9')
            k |= C_DIGIT;
        if (c == '.' || c == ',')
            k |= C_DOT;
        if (c == '-')
            k |= C_DASH;
        if (c >= 0x80)
            k |= C_HIGH;
        if (c == 0xC2 || c == 0xE1 || c == 0xE2 || c == 0xE3)
            k |= C_WSLEAD;  /* may start a non-ASCII whitespace character */
        CLS[c] = k;
    }
}

/* Bytes of the whitespace character that ends at e (0 if the last character is none). */
static Py_ssize_t ws_len_before(const unsigned char *s, const unsigned char *e)
{
    if (e <= s)
        return 0;
    if (CLS[e[-1]] & C_WS)
        return 1;
    for (Py_ssize_t n = 2; n <= 3 && e - n >= s; n++)
        if (ws_len(e - n, e) == n)
            return n;
    return 0;
}

/* The writer of a token block: bytes of tokens, one separator between two tokens. */
typedef struct {
    unsigned char *o, *line_start;
    int pend;
} Out;

static inline void put_byte(Out *w, unsigned char c)
{
    if (w->pend && w->o != w->line_start)
        *w->o++ = ' ';
    w->pend = 0;
    *w->o++ = c;
}

static inline void put_bytes(Out *w, const unsigned char *p, Py_ssize_t n)
{
    if (w->pend && w->o != w->line_start)
        *w->o++ = ' ';
    w->pend = 0;
    memcpy(w->o, p, (size_t)n);
    w->o += n;
}

/* One line s[0..n) (13a or zh; zh's line already stripped) into w. */
static void western_line(Out *w, const unsigned char *s, Py_ssize_t n, int mode)
{
    Py_ssize_t run = 0;  /* dots so far in the current run */
    int base = 0;        /* 1 when the run's first dot cannot be rule 2's second character */
    for (Py_ssize_t i = 0; i < n;) {
        unsigned char c = s[i], k = CLS[c];
        if (k & C_DOT) {
            if (run == 0)  /* the character before the run: 13a's padding space is a non-digit */
                base = i == 0 ? (mode == MODE_ZH) : (CLS[s[i - 1]] & C_DIGIT) != 0;
            int second = ((run + base) & 1) == 0;
            int attached = !second && (i + 1 < n ? (CLS[s[i + 1]] & C_DIGIT) != 0 : mode == MODE_ZH);
            if (!attached) {
                w->pend = 1;
                put_byte(w, c);
                w->pend = 1;
            } else {
                if (!(i > 0 && (CLS[s[i - 1]] & C_DIGIT)))
                    w->pend = 1;
                put_byte(w, c);
            }
            run++;
            i++;
            continue;
        }
        run = 0;
        if (k & (C_WS | C_PUNCT)) {
            w->pend = 1;
            if (k & C_PUNCT) {
                put_byte(w, c);
                w->pend = 1;
            }
            i++;
        } else if (k & C_DASH) {
            if (i > 0 && (CLS[s[i - 1]] & C_DIGIT)) {
                w->pend = 1;
                put_byte(w, c);
                w->pend = 1;
            } else {
                put_byte(w, c);
            }
            i++;
        } else if (k & C_HIGH) {
            Py_ssize_t len = char_len(s + i, s + n);
            if ((k & C_WSLEAD) && ws_len(s + i, s + n) == len) {
                w->pend = 1;
            } else if (mode == MODE_ZH && len > 1 && is_zh(code_point(s + i, len))) {
                w->pend = 1;
                put_bytes(w, s + i, len);
                w->pend = 1;
            } else {
                put_bytes(w, s + i, len);
            }
            i += len;
        } else {
            put_byte(w, c);
            i++;
        }
    }
}

/* One replacement pass of pat -> rep (rep no longer than pat) over s[0..n), in place, as
 * str.replace: every non-overlapping occurrence from the left. Returns the new length. */
static Py_ssize_t replace_all(unsigned char *s, Py_ssize_t n, const char *pat, const char *rep)
{
    Py_ssize_t pn = (Py_ssize_t)strlen(pat), rn = (Py_ssize_t)strlen(rep), i = 0, o = 0;
    while (i < n) {
        if (s[i] == (unsigned char)pat[0] && n - i >= pn && memcmp(s + i, pat, (size_t)pn) == 0) {
            memcpy(s + o, rep, (size_t)rn);
            o += rn;
            i += pn;
        } else {
            s[o++] = s[i++];
        }
    }
    return o;
}

/* 13a's language-independent part on a line that holds '&' or '<' (copied to buf first):
 * <skipped> removed, then the entities replaced in mteval-v13a.pl's order (&amp;lt; -> <). */
static Py_ssize_t entities_13a(unsigned char *buf, const unsigned char *s, Py_ssize_t n)
{
    memcpy(buf, s, (size_t)n);
    n = replace_all(buf, n, "<skipped>", "");
    if (memchr(buf, '&', (size_t)n)) {
        n = replace_all(buf, n, "&quot;", "\"");
        n = replace_all(buf, n, "&amp;", "&");
        n = replace_all(buf, n, "&lt;", "<");
        n = replace_all(buf, n, "&gt;", ">");
    }
    return n;
}

static PyObject *tokenize(PyObject *self, PyObject *args)
{
    Py_buffer view;
    int mode;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*i:tokenize", &view, &mode))
        return NULL;
    if (mode < MODE_13A || mode > MODE_CHAR) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "tokenize: mode must be 0 (13a), 1 (zh) or 2 (char)");
        return NULL;
    }
    const unsigned char *data = view.buf, *end = data + view.len;
    /* the most a line can grow: every character a token of its own, plus the LF */
    if (view.len > (PY_SSIZE_T_MAX - 2) / 2) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    unsigned char *buf = PyMem_Malloc((size_t)(2 * view.len + 2));
    if (!buf) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    unsigned char *scratch = PyMem_Malloc((size_t)view.len + 1);  /* a line, for 13a's entities */
    if (!scratch) {
        PyMem_Free(buf);
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    Out w = {buf, buf, 0};
    const unsigned char *line = data;
    while (line < end) {
        const unsigned char *nl = memchr(line, '\n', (size_t)(end - line));
        const unsigned char *s = line, *e = nl ? nl : end;
        line = nl ? nl + 1 : end;
        w.line_start = w.o;
        w.pend = 0;
        if (mode == MODE_CHAR) {
            for (const unsigned char *p = s; p < e;) {
                Py_ssize_t len = char_len(p, e);
                if ((CLS[*p] & C_WS) || ((CLS[*p] & C_WSLEAD) && ws_len(p, e) == len)) {
                    p += len;
                    continue;
                }
                w.pend = 1;
                put_bytes(&w, p, len);
                p += len;
            }
        } else {
            if (mode == MODE_ZH) {  /* str.strip() */
                for (Py_ssize_t k; s < e && (k = ws_len(s, e)) > 0;)
                    s += k;
                for (Py_ssize_t k; e > s && (k = ws_len_before(s, e)) > 0;)
                    e -= k;
            }
            if (mode == MODE_13A && (memchr(s, '&', (size_t)(e - s)) || memchr(s, '<', (size_t)(e - s)))) {
                Py_ssize_t n = entities_13a(scratch, s, e - s);
                western_line(&w, scratch, n, mode);
            } else {
                western_line(&w, s, e - s, mode);
            }
        }
        *w.o++ = '\n';
    }
    PyObject *result = PyBytes_FromStringAndSize((const char *)buf, w.o - buf);
    PyMem_Free(buf);
    PyMem_Free(scratch);
    PyBuffer_Release(&view);
    return result;
}

/* ------------------------------------------------------------------ intl */

/*
 * intl(data, punctuation, symbols, numbers, rstrip) -> bytes
 *
 * mteval-v14's international rules as sacreBLEU's intl (and tensor2tensor's
 * bleu_tokenize) apply them, three regular-expression substitutions in order
 * on each line, then str.split():
 *
 *   1. ([^N])([P]) -> "\1 \2 "   (punctuation after a non-number)
 *   2. ([P])([^N]) -> " \1 \2"   (punctuation before a non-number)
 *   3. ([S])       -> " \1 "     (every symbol a token of its own)
 *
 * P, S and N are given by the caller as ranges of code points (bytes of native
 * uint32 pairs, first and last, sorted): sacreBLEU 2.x's regex tables, or the
 * running Python's unicodedata classes for 1.x and tensor2tensor. Each rule is a
 * left-to-right scan of non-overlapping two-character (or one-character)
 * matches over the code points the previous rule left, which is what a
 * substitution of a fixed-length pattern does; the characters the rules insert
 * are spaces, in no class. rstrip: the line is rstrip()ped first (sacreBLEU's
 * BLEU strips each line; bleu_tokenize does not). A CR before a line's LF is
 * dropped (the reading rules). Output as tokenize()'s: tokens joined by one
 * space, every line ended by LF.
 */

enum { K_P = 1, K_S = 2, K_N = 4 };

typedef struct {
    const uint32_t *pairs[3];
    Py_ssize_t n[3];
    unsigned char *bmp;  /* classes of U+0000..U+FFFF */
} Classes;

static int in_pairs(const uint32_t *r, Py_ssize_t n, uint32_t cp)
{
    Py_ssize_t lo = 0, hi = n - 1;
    while (lo <= hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (cp < r[2 * mid])
            hi = mid - 1;
        else if (cp > r[2 * mid + 1])
            lo = mid + 1;
        else
            return 1;
    }
    return 0;
}

static inline unsigned char class_of(const Classes *k, uint32_t cp)
{
    if (cp < 0x10000)
        return k->bmp[cp];
    unsigned char c = 0;
    if (in_pairs(k->pairs[0], k->n[0], cp)) c |= K_P;
    if (in_pairs(k->pairs[1], k->n[1], cp)) c |= K_S;
    if (in_pairs(k->pairs[2], k->n[2], cp)) c |= K_N;
    return c;
}

static inline int is_py_space(uint32_t cp)
{
    if (cp < 0x80)
        return cp == 0x20 || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F);
    return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A)
           || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

static inline Py_ssize_t put_utf8(unsigned char *o, uint32_t cp)
{
    if (cp < 0x80) { o[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) { o[0] = (unsigned char)(0xC0 | (cp >> 6)); o[1] = (unsigned char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12)); o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F)); return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18)); o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A code point array; the classes ride along in the same index. */
typedef struct {
    uint32_t *cp;
    unsigned char *k;
    Py_ssize_t n, cap;
} Cps;

static int cps_reserve(Cps *a, Py_ssize_t n)
{
    if (n <= a->cap)
        return 0;
    Py_ssize_t cap = a->cap ? a->cap : 256;
    while (cap < n)
        cap *= 2;
    uint32_t *cp = PyMem_Realloc(a->cp, (size_t)cap * sizeof(uint32_t));
    if (!cp)
        return -1;
    a->cp = cp;
    unsigned char *k = PyMem_Realloc(a->k, (size_t)cap);
    if (!k)
        return -1;
    a->k = k;
    a->cap = cap;
    return 0;
}

static inline void cps_push(Cps *a, uint32_t cp, unsigned char k)
{
    a->cp[a->n] = cp;
    a->k[a->n] = k;
    a->n++;
}

static int read_pairs(PyObject *obj, const char *what, Py_buffer *view, Classes *k, int slot)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0)
        return -1;
    if (view->len % (Py_ssize_t)(2 * sizeof(uint32_t)) != 0) {
        PyErr_Format(PyExc_ValueError, "intl: %s must be uint32 pairs", what);
        return -1;
    }
    k->pairs[slot] = view->buf;
    k->n[slot] = view->len / (Py_ssize_t)(2 * sizeof(uint32_t));
    return 0;
}

static PyObject *intl(PyObject *self, PyObject *args)
{
    Py_buffer view, pv[3];
    PyObject *objs[3];
    int rstrip;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*OOOp:intl", &view, &objs[0], &objs[1], &objs[2], &rstrip))
        return NULL;
    static const char *names[3] = {"punctuation", "symbols", "numbers"};
    Classes k = {{NULL, NULL, NULL}, {0, 0, 0}, NULL};
    int got = 0;
    PyObject *result = NULL;
    Cps a = {0}, b = {0};
    unsigned char *buf = NULL;
    for (; got < 3; got++)
        if (read_pairs(objs[got], names[got], &pv[got], &k, got) < 0)
            goto done;
    k.bmp = PyMem_Calloc(0x10000, 1);
    if (!k.bmp) {
        PyErr_NoMemory();
        goto done;
    }
    for (int slot = 0; slot < 3; slot++) {
        unsigned char bit = slot == 0 ? K_P : slot == 1 ? K_S : K_N;
        for (Py_ssize_t r = 0; r < k.n[slot]; r++) {
            uint32_t lo = k.pairs[slot][2 * r], hi = k.pairs[slot][2 * r + 1];
            for (uint32_t cp = lo; cp <= hi && cp < 0x10000; cp++)
                k.bmp[cp] |= bit;
        }
    }
    const unsigned char *data = view.buf, *end = data + view.len;
    /* the most a line can grow: every character a token of its own, plus the LF */
    if (view.len > (PY_SSIZE_T_MAX - 2) / 2) {
        PyErr_NoMemory();
        goto done;
    }
    buf = PyMem_Malloc((size_t)(2 * view.len + 2));
    if (!buf) {
        PyErr_NoMemory();
        goto done;
    }
    unsigned char *o = buf;
    const unsigned char *line = data;
    while (line < end) {
        const unsigned char *nl = memchr(line, '\n', (size_t)(end - line));
        const unsigned char *s = line, *e = nl ? nl : end;
        line = nl ? nl + 1 : end;
        if (nl && e > s && e[-1] == '\r')
            e--;
        /* decode */
        a.n = 0;
        if (cps_reserve(&a, e - s + 1) < 0 || cps_reserve(&b, 3 * (e - s) + 1) < 0) {
            PyErr_NoMemory();
            goto done;
        }
        for (const unsigned char *p = s; p < e;) {
            Py_ssize_t len = char_len(p, e);
            uint32_t cp = len == 1 ? p[0] : code_point(p, len);
            cps_push(&a, cp, class_of(&k, cp));
            p += len;
        }
        if (rstrip)
            while (a.n > 0 && is_py_space(a.cp[a.n - 1]))
                a.n--;
        /* rule 1: ([^N])([P]) -> "\1 \2 " */
        b.n = 0;
        for (Py_ssize_t i = 0; i < a.n;) {
            if (i + 1 < a.n && !(a.k[i] & K_N) && (a.k[i + 1] & K_P)) {
                cps_push(&b, a.cp[i], a.k[i]);
                cps_push(&b, ' ', 0);
                cps_push(&b, a.cp[i + 1], a.k[i + 1]);
                cps_push(&b, ' ', 0);
                i += 2;
            } else {
                cps_push(&b, a.cp[i], a.k[i]);
                i++;
            }
        }
        /* rule 2: ([P])([^N]) -> " \1 \2" (back into a) */
        if (cps_reserve(&a, 2 * b.n + 2) < 0) {
            PyErr_NoMemory();
            goto done;
        }
        a.n = 0;
        for (Py_ssize_t i = 0; i < b.n;) {
            if (i + 1 < b.n && (b.k[i] & K_P) && !(b.k[i + 1] & K_N)) {
                cps_push(&a, ' ', 0);
                cps_push(&a, b.cp[i], b.k[i]);
                cps_push(&a, ' ', 0);
                cps_push(&a, b.cp[i + 1], b.k[i + 1]);
                i += 2;
            } else {
                cps_push(&a, b.cp[i], b.k[i]);
                i++;
            }
        }
        /* rule 3 and the split: a symbol is a token of its own, whitespace separates */
        unsigned char *line_start = o;
        int pend = 0;
        for (Py_ssize_t i = 0; i < a.n; i++) {
            uint32_t cp = a.cp[i];
            if (is_py_space(cp)) {
                pend = 1;
                continue;
            }
            int symbol = (a.k[i] & K_S) != 0;
            int sep = (pend || symbol) && o != line_start;
            Py_ssize_t need = sep + (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4) + 1;
            if (o + need > buf + 2 * view.len + 2) {  /* cannot happen: a guard all the same */
                PyErr_SetString(PyExc_RuntimeError, "intl: output overflow");
                goto done;
            }
            if (sep)
                *o++ = ' ';
            pend = symbol;
            o += put_utf8(o, cp);
        }
        *o++ = '\n';
    }
    result = PyBytes_FromStringAndSize((const char *)buf, o - buf);
done:
    PyMem_Free(buf);
    PyMem_Free(a.cp);
    PyMem_Free(a.k);
    PyMem_Free(b.cp);
    PyMem_Free(b.k);
    PyMem_Free(k.bmp);
    for (int g = 0; g < got; g++)
        PyBuffer_Release(&pv[g]);
    PyBuffer_Release(&view);
    return result;
}

/* ------------------------------------------------------------------ script counts */

static PyObject *script_counts(PyObject *self, PyObject *args)
{
    PyObject *text, *han, *kana, *hangul;
    (void)self;
    if (!PyArg_ParseTuple(args, "UO!O!O!:script_counts", &text, &PyTuple_Type, &han,
                          &PyTuple_Type, &kana, &PyTuple_Type, &hangul))
        return NULL;
    PyObject *groups[3] = {han, kana, hangul};
    enum { MAX_RANGES = 64 };
    long lo[3][MAX_RANGES], hi[3][MAX_RANGES];
    Py_ssize_t sizes[3];
    for (int g = 0; g < 3; g++) {
        sizes[g] = PyTuple_GET_SIZE(groups[g]);
        if (sizes[g] > MAX_RANGES) {
            PyErr_SetString(PyExc_ValueError, "script_counts: at most 64 ranges per group");
            return NULL;
        }
        for (Py_ssize_t k = 0; k < sizes[g]; k++) {
            PyObject *r = PyTuple_GET_ITEM(groups[g], k);
            if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 2) {
                PyErr_SetString(PyExc_TypeError, "script_counts: ranges are (first, last) pairs");
                return NULL;
            }
            lo[g][k] = PyLong_AsLong(PyTuple_GET_ITEM(r, 0));
            hi[g][k] = PyLong_AsLong(PyTuple_GET_ITEM(r, 1));
            if (PyErr_Occurred())
                return NULL;
        }
    }
    long first = 0x110000;  /* below every range: no group to test */
    for (int g = 0; g < 3; g++)
        for (Py_ssize_t k = 0; k < sizes[g]; k++)
            if (lo[g][k] < first)
                first = lo[g][k];
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t letters = 0, counts[3] = {0, 0, 0};
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch < 0x80) {  /* ASCII: the letters are A-Z and a-z */
            letters += ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z');
            continue;
        }
        if (Py_UNICODE_ISALNUM(ch) && !Py_UNICODE_ISDECIMAL(ch))
            letters++;
        if ((long)ch < first)
            continue;
        int found = 0;
        for (int g = 0; g < 3 && !found; g++)
            for (Py_ssize_t k = 0; k < sizes[g]; k++)
                if ((long)ch >= lo[g][k] && (long)ch <= hi[g][k]) {
                    counts[g]++;
                    found = 1;
                    break;
                }
    }
    if (PyErr_Occurred())
        return NULL;
    return Py_BuildValue("nnnn", letters, counts[0], counts[1], counts[2]);
}

/* ------------------------------------------------------------------ counting */

static inline uint64_t mix64(uint64_t h)
{   /* the finaliser of MurmurHash3 (any bijection works: equal keys are compared) */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static inline uint64_t hash_bytes(const unsigned char *p, Py_ssize_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = mix64(h ^ w);
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, (size_t)n);
    return mix64(h ^ w ^ 0x5bd1e995ULL);
}

typedef struct {             /* one file's block, split */
    Py_ssize_t *line_start;  /* n_seg + 1 token indices */
    Py_ssize_t *off;         /* per token: its first byte */
    uint32_t *len;           /* per token: its length in bytes */
    uint32_t *ids;           /* per token: its id within its segment (set segment by segment) */
    Py_ssize_t n_tok;
} Split;

/*
 * Token ids, segment by segment: equal ids within a segment if and only if equal bytes
 * (n-grams are compared only within a segment, so a segment's hypothesis and references
 * are all that need one numbering; a small table per segment stays in the cache).
 * Open addressing at most half full. A token of at most 8 bytes is keyed by its bytes as
 * one zero-padded word and its length (a token may hold NUL bytes, so the length tells
 * "a" from "a\0"); a longer one by a hash of its bytes, and compared byte for byte.
 */
typedef struct {
    uint64_t key;            /* the token's bytes (<= 8) or its hash */
    uint32_t len;            /* its length, or 9 for any longer token */
    uint32_t id1;            /* id + 1; 0 = empty */
} Slot;

typedef struct {
    Slot *slots;                  /* mask + 1 of them */
    const unsigned char **tok_p;  /* per id: its bytes and length (for long tokens) */
    Py_ssize_t *tok_n;
    Py_ssize_t ids_cap, n_ids, mask;
} Vocab;

/* The table grows with the segment's distinct tokens, not its length: memory follows the
 * vocabulary (a 60 MiB line of a 50,000-word vocabulary needs a table of 2^17 slots). */
#define VOCAB_FIRST 4096

static void vocab_free(Vocab *v)
{
    PyMem_Free(v->slots);
    PyMem_Free(v->tok_p);
    PyMem_Free(v->tok_n);
    v->slots = NULL;
    v->tok_p = NULL;
    v->tok_n = NULL;
}

/* Start a segment of ``tokens`` tokens: an empty table of at most VOCAB_FIRST slots
 * (fewer for a short segment: it is cleared for every segment). 0, or -1 (no memory). */
static int vocab_start(Vocab *v, Py_ssize_t tokens)
{
    Py_ssize_t size = 16;
    while (size < 2 * tokens + 2 && size < VOCAB_FIRST)
        size *= 2;
    if (!v->slots) {
        v->slots = PyMem_Malloc(VOCAB_FIRST * sizeof(Slot));
        if (!v->slots)
            return -1;
    } else if (v->mask + 1 > VOCAB_FIRST) {  /* the last segment grew it: back to the first size */
        Slot *s = PyMem_Realloc(v->slots, VOCAB_FIRST * sizeof(Slot));
        if (!s)
            return -1;
        v->slots = s;
    }
    memset(v->slots, 0, (size_t)size * sizeof(Slot));
    v->mask = size - 1;
    v->n_ids = 0;
    return 0;
}

static inline uint64_t slot_hash(uint64_t key, uint32_t len);

/* Double the table when it is half full, and the per-id arrays when full. 0, or -1. */
static int vocab_room(Vocab *v)
{
    if (v->n_ids == v->ids_cap) {
        Py_ssize_t cap = v->ids_cap ? 2 * v->ids_cap : 1024;
        const unsigned char **p = PyMem_Realloc(v->tok_p, (size_t)cap * sizeof(*p));
        if (p)
            v->tok_p = p;
        Py_ssize_t *n = PyMem_Realloc(v->tok_n, (size_t)cap * sizeof(*n));
        if (n)
            v->tok_n = n;
        if (!p || !n)
            return -1;
        v->ids_cap = cap;
    }
    if (2 * (v->n_ids + 1) <= v->mask + 1)
        return 0;
    Py_ssize_t size = 2 * (v->mask + 1);
    if (size > ((Py_ssize_t)1 << 40))
        return -1;
    Slot *grown = PyMem_Calloc((size_t)size, sizeof(Slot));
    if (!grown)
        return -1;
    for (Py_ssize_t k = 0; k <= v->mask; k++) {
        Slot x = v->slots[k];
        if (!x.id1)
            continue;
        Py_ssize_t j = (Py_ssize_t)(slot_hash(x.key, x.len) & (uint64_t)(size - 1));
        while (grown[j].id1)
            j = (j + 1) & (size - 1);
        grown[j] = x;
    }
    PyMem_Free(v->slots);
    v->slots = grown;
    v->mask = size - 1;
    return 0;
}

static inline uint64_t slot_hash(uint64_t key, uint32_t len)
{
    return mix64(key ^ ((uint64_t)len << 56));
}

/* The id of the token p[0..n) in this segment (a new one if unseen; -1: no memory). ``end``
 * is the end of the buffer: a short token's word is read with one load when 8 bytes are there. */
static inline int64_t vocab_id(Vocab *v, const unsigned char *p, Py_ssize_t n,
                               const unsigned char *end)
{
    if (vocab_room(v) < 0)
        return -1;
    uint64_t key;
    uint32_t len;
    if (n <= 8) {
        key = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (end - p >= 8) {  /* one load; the bytes past the token are the high ones: cleared */
            memcpy(&key, p, 8);
            if (n < 8)
                key &= (((uint64_t)1) << (8 * n)) - 1;
        } else
#endif
        {
            (void)end;
            memcpy(&key, p, (size_t)n);
        }
        len = (uint32_t)n;
    } else {
        key = hash_bytes(p, n);
        len = 9;
    }
    Py_ssize_t k = (Py_ssize_t)(slot_hash(key, len) & (uint64_t)v->mask);
    for (;;) {
        Slot *x = &v->slots[k];
        if (!x->id1) {
            uint32_t id = (uint32_t)v->n_ids++;
            x->id1 = id + 1;
            x->key = key;
            x->len = len;
            v->tok_p[id] = p;
            v->tok_n[id] = n;
            return id;
        }
        if (x->key == key && x->len == len
            && (len <= 8 || (v->tok_n[x->id1 - 1] == n && memcmp(v->tok_p[x->id1 - 1], p, (size_t)n) == 0)))
            return x->id1 - 1;
        k = (k + 1) & v->mask;
    }
}

/* The first space in p[0..e), or e. Eight bytes at a time where eight are there (SWAR: a
 * byte equal to 0x20 becomes zero after the XOR; the subtract-and-mask finds the first zero
 * byte, little-endian). */
static inline const unsigned char *next_space(const unsigned char *p, const unsigned char *e)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    while (e - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        w ^= 0x2020202020202020ULL;
        uint64_t z = (w - ones) & ~w & highs;
        if (z)
            return p + (__builtin_ctzll(z) >> 3);
        p += 8;
    }
#endif
    while (p < e && *p != ' ')
        p++;
    return p;
}

/* Append the token at offset off, n bytes long; 0, or -1 (exception set). */
static int push_token(Split *out, Py_ssize_t *n_tok, Py_ssize_t *cap, Py_ssize_t off, Py_ssize_t n)
{
    if (n > (Py_ssize_t)UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "counts: a token of 4 GiB or more");
        return -1;
    }
    if (*n_tok == *cap) {
        *cap *= 2;
        Py_ssize_t *o = PyMem_Realloc(out->off, (size_t)*cap * sizeof(Py_ssize_t));
        if (o)
            out->off = o;
        uint32_t *l = PyMem_Realloc(out->len, (size_t)*cap * sizeof(uint32_t));
        if (l)
            out->len = l;
        if (!o || !l) {
            PyErr_NoMemory();
            return -1;
        }
    }
    out->off[*n_tok] = off;
    out->len[(*n_tok)++] = (uint32_t)n;
    return 0;
}

/* Lines and tokens of one block; 0, or -1 (exception set: memory, or not n_seg lines).
 * ``normalized``: the block is tokenize()'s output (tokens separated by one space, no space
 * at a line's ends, no other whitespace), split at its spaces only. */
static int split_block(const unsigned char *data, Py_ssize_t len, Py_ssize_t n_seg, Split *out,
                       Py_ssize_t file, int normalized)
{
    const unsigned char *p = data, *end = data + len;
    Py_ssize_t lines = 0, n_tok = 0, cap = 64;
    out->line_start = PyMem_Malloc((size_t)(n_seg + 1) * sizeof(Py_ssize_t));
    out->off = PyMem_Malloc((size_t)cap * sizeof(Py_ssize_t));
    out->len = PyMem_Malloc((size_t)cap * sizeof(uint32_t));
    if (!out->line_start || !out->off || !out->len) {
        PyErr_NoMemory();
        return -1;
    }
    while (p < end) {
        if (lines >= n_seg) {
            PyErr_Format(PyExc_ValueError, "counts: block %zd holds more than %zd lines", file, n_seg);
            return -1;
        }
        out->line_start[lines++] = n_tok;
        const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
        const unsigned char *e = nl ? nl : end;
        while (normalized && p < e) {
            const unsigned char *t = p;
            p = next_space(p, e);
            if (push_token(out, &n_tok, &cap, t - data, p - t) < 0)
                return -1;
            if (p < e)
                p++;  /* the one space */
        }
        while (p < e) {
            unsigned char k = CLS[*p];
            if (k & C_WS) {
                p++;
                continue;
            }
            if (k & C_WSLEAD) {
                Py_ssize_t w = ws_len(p, e);
                if (w) {
                    p += w;
                    continue;
                }
            }
            const unsigned char *t = p++;
            while (p < e) {  /* to the token's end: whitespace, or a whitespace sequence */
                if (CLS[*p] & (C_WS | C_WSLEAD)) {
                    if ((CLS[*p] & C_WS) || ws_len(p, e))
                        break;
                }
                p++;
            }
            if (push_token(out, &n_tok, &cap, t - data, p - t) < 0)
                return -1;
        }
        p = nl ? nl + 1 : end;
    }
    if (lines != n_seg) {
        PyErr_Format(PyExc_ValueError, "counts: block %zd holds %zd lines, not %zd", file, lines, n_seg);
        return -1;
    }
    out->line_start[n_seg] = n_tok;
    out->n_tok = n_tok;
    out->ids = PyMem_Malloc((size_t)(n_tok + 1) * sizeof(uint32_t));
    if (!out->ids) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

typedef struct {             /* an n-gram of the hypothesis, for one order (32 bytes) */
    uint64_t hash;
    uint32_t pos;            /* its first token in the hypothesis (a segment holds < 2^32) */
    uint32_t hyp, ref_max, cur;  /* counts, at most the segment's tokens */
    int32_t last_ref;        /* the reference cur counts, -1 = none yet */
} Gram;

#define SEED 0x27d4eb2f165667c5ULL

static inline uint64_t extend(uint64_t h, uint32_t id)
{   /* the hash of an n-gram from its (n-1)-prefix's and its last token's id (multiplicative,
     * Knuth TAOCP 6.4; a collision costs a comparison, never a wrong count) */
    h = (h ^ (id + 1)) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

static inline int same_ids(const uint32_t *a, const uint32_t *b, int n)
{
    for (int t = 0; t < n; t++)
        if (a[t] != b[t])
            return 0;
    return 1;
}

/* The slot of the hypothesis n-gram equal to key[0..n), or -1. */
static inline Py_ssize_t find(const Gram *table, const int32_t *slots, Py_ssize_t mask,
                              const uint32_t *hyp, uint64_t hv, const uint32_t *key, int n)
{
    Py_ssize_t s = (Py_ssize_t)(hv & (uint64_t)mask);
    for (;;) {
        int32_t g = slots[s];
        if (g < 0)
            return -1;
        if (table[g].hash == hv && same_ids(hyp + table[g].pos, key, n))
            return g;
        s = (s + 1) & mask;
    }
}

/* Growable per-segment arrays. */
typedef struct {
    uint32_t *pos;
    uint64_t *hash;
    uint32_t *gram;          /* the hypothesis' positions: their n-gram's entry */
    Py_ssize_t cap;
} Positions;

static int positions_reserve(Positions *x, Py_ssize_t n)
{
    if (n <= x->cap)
        return 0;
    Py_ssize_t cap = x->cap ? x->cap : 64;
    while (cap < n)
        cap *= 2;
    uint32_t *p = PyMem_Realloc(x->pos, (size_t)cap * sizeof(uint32_t));
    if (p)
        x->pos = p;
    uint64_t *h = PyMem_Realloc(x->hash, (size_t)cap * sizeof(uint64_t));
    if (h)
        x->hash = h;
    uint32_t *g = PyMem_Realloc(x->gram, (size_t)cap * sizeof(uint32_t));
    if (g)
        x->gram = g;
    if (!p || !h || !g)
        return -1;
    x->cap = cap;
    return 0;
}

/*
 * One segment's clipped matches per order (into sm[0..max_order)).
 *
 * Order by order, the hypothesis n-grams are counted in a hash table and every
 * reference's n-grams are looked up in it; an n-gram's matches are
 * min(its count in the hypothesis, its largest count in one reference). Only
 * positions whose (n-1)-gram is shared by the hypothesis and some reference
 * are extended to order n (no other n-gram can match): the hypothesis'
 * positions whose (n-1)-gram some reference holds, each reference's positions
 * whose (n-1)-gram the hypothesis holds.
 */
static int segment_matches(const uint32_t *h, Py_ssize_t c, const uint32_t *const *refs,
                           const Py_ssize_t *ref_lens, Py_ssize_t n_refs, int max_order,
                           Gram *table, int32_t *slots, Positions *hp, Positions *rp,
                           Py_ssize_t *ref_count, int64_t *sm)
{
    Py_ssize_t total_ref = 0;
    for (Py_ssize_t k = 0; k < n_refs; k++)
        total_ref += ref_lens[k];
    if (positions_reserve(hp, c) < 0 || positions_reserve(rp, total_ref) < 0)
        return -1;
    Py_ssize_t n_hyp = c, off = 0;
    for (Py_ssize_t i = 0; i < c; i++) {
        hp->pos[i] = (uint32_t)i;
        hp->hash[i] = SEED;
    }
    for (Py_ssize_t k = 0; k < n_refs; k++) {     /* reference k's positions: rp[off..) */
        for (Py_ssize_t j = 0; j < ref_lens[k]; j++) {
            rp->pos[off + j] = (uint32_t)j;
            rp->hash[off + j] = SEED;
        }
        ref_count[k] = ref_lens[k];
        off += ref_lens[k];
    }
    for (int n = 1; n <= max_order; n++) {
        if (n_hyp == 0) {
            sm[n - 1] = 0;
            continue;
        }
        Py_ssize_t size = 16;
        while (size < 2 * n_hyp + 2)
            size *= 2;
        Py_ssize_t mask = size - 1;
        for (Py_ssize_t x = 0; x < size; x++)
            slots[x] = -1;
        Py_ssize_t n_grams = 0, kept = 0;
        for (Py_ssize_t a = 0; a < n_hyp; a++) {
            Py_ssize_t i = hp->pos[a];
            if (i + n > c)
                continue;
            uint64_t hv = extend(hp->hash[a], h[i + n - 1]);
            hp->pos[kept] = (uint32_t)i;
            hp->hash[kept] = hv;
            Py_ssize_t s = (Py_ssize_t)(hv & (uint64_t)mask);
            for (;;) {
                int32_t g = slots[s];
                if (g < 0) {
                    table[n_grams] = (Gram){hv, (uint32_t)i, 1, 0, 0, -1};
                    hp->gram[kept] = (uint32_t)n_grams;
                    slots[s] = (int32_t)n_grams++;
                    break;
                }
                if (table[g].hash == hv && same_ids(h + table[g].pos, h + i, n)) {
                    table[g].hyp++;
                    hp->gram[kept] = (uint32_t)g;
                    break;
                }
                s = (s + 1) & mask;
            }
            kept++;
        }
        n_hyp = kept;
        off = 0;
        for (Py_ssize_t k = 0; k < n_refs; k++) {
            const uint32_t *r = refs[k];
            Py_ssize_t m = ref_lens[k], keep = 0;
            uint32_t *pos = rp->pos + off;
            uint64_t *hash = rp->hash + off;
            for (Py_ssize_t a = 0; a < ref_count[k]; a++) {
                Py_ssize_t j = pos[a];
                if (j + n > m)
                    continue;
                uint64_t hv = extend(hash[a], r[j + n - 1]);
                Py_ssize_t g = find(table, slots, mask, h, hv, r + j, n);
                if (g < 0)
                    continue;
                Gram *x = &table[g];
                if (x->last_ref != (int32_t)k) {
                    x->last_ref = (int32_t)k;
                    x->cur = 0;
                }
                if (++x->cur > x->ref_max)
                    x->ref_max = x->cur;
                pos[keep] = (uint32_t)j;
                hash[keep++] = hv;
            }
            ref_count[k] = keep;
            off += m;
        }
        int64_t total = 0;
        for (Py_ssize_t g = 0; g < n_grams; g++)
            total += table[g].hyp < table[g].ref_max ? table[g].hyp : table[g].ref_max;
        sm[n - 1] = total;
        kept = 0;
        for (Py_ssize_t a = 0; a < n_hyp; a++) {
            if (table[hp->gram[a]].ref_max > 0) {
                hp->pos[kept] = hp->pos[a];
                hp->hash[kept++] = hp->hash[a];
            }
        }
        n_hyp = kept;
    }
    return 0;
}

static PyObject *counts(PyObject *self, PyObject *args)
{
    PyObject *seq;
    Py_ssize_t n_seg;
    int max_order, per_segment, normalized = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "Onip|p:counts", &seq, &n_seg, &max_order, &per_segment,
                          &normalized))
        return NULL;
    if (max_order < 1 || max_order > 1000 || n_seg < 0) {
        PyErr_SetString(PyExc_ValueError, "counts: max_order must be 1..1000, n_seg >= 0");
        return NULL;
    }
    PyObject *fast = PySequence_Fast(seq, "counts: chunks must be a sequence of bytes");
    if (!fast)
        return NULL;
    Py_ssize_t n_files = PySequence_Fast_GET_SIZE(fast);
    if (n_files < 2) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "counts: a hypothesis block and at least one reference block");
        return NULL;
    }
    Py_ssize_t n_refs = n_files - 1;
    Py_buffer *views = PyMem_Calloc((size_t)n_files, sizeof(Py_buffer));
    Split *split = PyMem_Calloc((size_t)n_files, sizeof(Split));
    const uint32_t **refs = PyMem_Calloc((size_t)n_refs, sizeof(*refs));
    Py_ssize_t *ref_lens = PyMem_Calloc((size_t)n_refs, sizeof(Py_ssize_t));
    Py_ssize_t *ref_count = PyMem_Calloc((size_t)n_refs, sizeof(Py_ssize_t));
    Vocab vocab = {0};
    Gram *table = NULL;
    int32_t *slots = NULL;
    Positions hp = {0}, rp = {0};
    int64_t *matches = PyMem_Calloc((size_t)max_order, sizeof(int64_t));
    int64_t *totals = PyMem_Calloc((size_t)max_order, sizeof(int64_t));
    int64_t *sm = PyMem_Calloc((size_t)max_order, sizeof(int64_t));
    PyObject *rows = NULL, *result = NULL;
    Py_ssize_t got = 0;
    if (!views || !split || !refs || !ref_lens || !ref_count || !matches || !totals || !sm) {
        PyErr_NoMemory();
        goto fail;
    }
    for (; got < n_files; got++)
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(fast, got), &views[got], PyBUF_SIMPLE) < 0)
            goto fail;
    Py_ssize_t longest = 1;
    for (Py_ssize_t f = 0; f < n_files; f++) {
        if (split_block(views[f].buf, views[f].len, n_seg, &split[f], f, normalized) < 0)
            goto fail;
    }
    for (Py_ssize_t i = 0; i < n_seg; i++) {
        Py_ssize_t len = split[0].line_start[i + 1] - split[0].line_start[i];
        if (len > longest)
            longest = len;
    }
    for (Py_ssize_t f = 0; f < n_files; f++)
        for (Py_ssize_t i = 0; i < n_seg; i++)
            if (split[f].line_start[i + 1] - split[f].line_start[i] > INT32_MAX / 4) {
                PyErr_SetString(PyExc_ValueError, "counts: a line of more than 2^29 tokens");
                goto fail;
            }
    Py_ssize_t cap = 16;
    while (cap < 2 * longest + 2)
        cap *= 2;
    table = PyMem_Malloc((size_t)longest * sizeof(Gram));
    slots = PyMem_Malloc((size_t)cap * sizeof(int32_t));
    if (!table || !slots) {
        PyErr_NoMemory();
        goto fail;
    }
    int64_t hyp_len = 0, ref_len = 0;
    if (per_segment && !(rows = PyList_New(n_seg)))
        goto fail;
    for (Py_ssize_t seg = 0; seg < n_seg; seg++) {
        /* the segment's tokens numbered (hypothesis, then each reference) */
        Py_ssize_t all = 0;
        for (Py_ssize_t f = 0; f < n_files; f++)
            all += split[f].line_start[seg + 1] - split[f].line_start[seg];
        if (vocab_start(&vocab, all) < 0) {
            PyErr_NoMemory();
            goto fail;
        }
        for (Py_ssize_t f = 0; f < n_files; f++) {
            const unsigned char *base = views[f].buf, *bend = base + views[f].len;
            for (Py_ssize_t t = split[f].line_start[seg]; t < split[f].line_start[seg + 1]; t++) {
                int64_t id = vocab_id(&vocab, base + split[f].off[t], split[f].len[t], bend);
                if (id < 0) {
                    PyErr_NoMemory();
                    goto fail;
                }
                split[f].ids[t] = (uint32_t)id;
            }
        }
        const uint32_t *h = split[0].ids + split[0].line_start[seg];
        Py_ssize_t c = split[0].line_start[seg + 1] - split[0].line_start[seg];
        /* the closest reference length, ties to the shorter */
        Py_ssize_t best = -1, best_d = 0;
        for (Py_ssize_t k = 0; k < n_refs; k++) {
            refs[k] = split[k + 1].ids + split[k + 1].line_start[seg];
            Py_ssize_t r = ref_lens[k] = split[k + 1].line_start[seg + 1] - split[k + 1].line_start[seg];
            Py_ssize_t d = r >= c ? r - c : c - r;
            if (best < 0 || d < best_d || (d == best_d && r < best)) {
                best = r;
                best_d = d;
            }
        }
        if (segment_matches(h, c, refs, ref_lens, n_refs, max_order, table, slots, &hp, &rp,
                            ref_count, sm) < 0) {
            PyErr_NoMemory();
            goto fail;
        }
        for (int n = 0; n < max_order; n++) {
            matches[n] += sm[n];
            totals[n] += c > n ? c - n : 0;
        }
        hyp_len += c;
        ref_len += best;
        if (rows) {
            PyObject *row = PyList_New(2 * max_order + 2);
            if (!row)
                goto fail;
            PyList_SET_ITEM(rows, seg, row);
            for (int n = 0; n < max_order; n++) {
                PyList_SET_ITEM(row, n, PyLong_FromLongLong(sm[n]));
                PyList_SET_ITEM(row, max_order + n, PyLong_FromSsize_t(c > n ? c - n : 0));
            }
            PyList_SET_ITEM(row, 2 * max_order, PyLong_FromSsize_t(c));
            PyList_SET_ITEM(row, 2 * max_order + 1, PyLong_FromSsize_t(best));
            for (Py_ssize_t x = 0; x < 2 * max_order + 2; x++)
                if (!PyList_GET_ITEM(row, x))
                    goto fail;
        }
    }
    {
        PyObject *m = PyList_New(max_order), *t = PyList_New(max_order);
        if (!m || !t) {
            Py_XDECREF(m);
            Py_XDECREF(t);
            goto fail;
        }
        for (int n = 0; n < max_order; n++) {
            PyList_SET_ITEM(m, n, PyLong_FromLongLong(matches[n]));
            PyList_SET_ITEM(t, n, PyLong_FromLongLong(totals[n]));
        }
        Py_ssize_t n_tokens = 0;
        for (Py_ssize_t f = 0; f < n_files; f++)
            n_tokens += split[f].n_tok;
        result = Py_BuildValue("(NNLLnO)", m, t, (long long)hyp_len, (long long)ref_len, n_tokens,
                               rows ? rows : Py_None);
    }
fail:
    Py_XDECREF(rows);
    if (split)
        for (Py_ssize_t f = 0; f < n_files; f++) {
            PyMem_Free(split[f].line_start);
            PyMem_Free(split[f].off);
            PyMem_Free(split[f].len);
            PyMem_Free(split[f].ids);
        }
    if (views)
        for (Py_ssize_t f = 0; f < got; f++)
            PyBuffer_Release(&views[f]);
    PyMem_Free(views);
    PyMem_Free(split);
    PyMem_Free(refs);
    PyMem_Free(ref_lens);
    PyMem_Free(ref_count);
    vocab_free(&vocab);
    PyMem_Free(table);
    PyMem_Free(slots);
    PyMem_Free(hp.pos);
    PyMem_Free(hp.hash);
    PyMem_Free(hp.gram);
    PyMem_Free(rp.pos);
    PyMem_Free(rp.hash);
    PyMem_Free(rp.gram);
    PyMem_Free(matches);
    PyMem_Free(totals);
    PyMem_Free(sm);
    Py_DECREF(fast);
    return result;
}

/* ------------------------------------------------------------------ pooled references */

/*
 * pooled(chunks, n_seg, max_order, normalized) -> (rows, lengths)
 *
 * Each hypothesis (chunks[0], one per line) against every reference segment of the corpus
 * pooled (chunks[1:], every line of every file): an n-gram's matches are min(its count in
 * the hypothesis, its largest count in any one reference segment); the reference length
 * is the pooled length closest to the hypothesis' (ties to the shorter). rows[i] =
 * [m_1..m_N, l_1..l_N, hyp_len, ref_len]; lengths = every reference segment's length,
 * file by file. Tokens are split as counts() splits them. One table of every reference
 * n-gram (order, ids) holds its largest count in one segment; a hypothesis n-gram's k-th
 * occurrence matches while k <= that count (sum over k of [k <= max] = min(count, max)).
 */
typedef struct {
    uint64_t hash;
    const uint32_t *key;     /* its ids */
    int64_t last_ref, last_hyp;
    uint32_t max, cur, hyp;
    int32_t order;
} PoolGram;

static int compare_ssize(const void *a, const void *b)
{
    Py_ssize_t x = *(const Py_ssize_t *)a, y = *(const Py_ssize_t *)b;
    return (x > y) - (x < y);
}

static PyObject *pooled(PyObject *self, PyObject *args)
{
    PyObject *seq;
    Py_ssize_t n_seg;
    int max_order, normalized = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "Oni|p:pooled", &seq, &n_seg, &max_order, &normalized))
        return NULL;
    if (max_order < 1 || max_order > 1000 || n_seg < 0) {
        PyErr_SetString(PyExc_ValueError, "pooled: max_order must be 1..1000, n_seg >= 0");
        return NULL;
    }
    PyObject *fast = PySequence_Fast(seq, "pooled: chunks must be a sequence of bytes");
    if (!fast)
        return NULL;
    Py_ssize_t n_files = PySequence_Fast_GET_SIZE(fast);
    if (n_files < 2) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "pooled: a hypothesis block and at least one reference block");
        return NULL;
    }
    Py_buffer *views = PyMem_Calloc((size_t)n_files, sizeof(Py_buffer));
    Split *split = PyMem_Calloc((size_t)n_files, sizeof(Split));
    Vocab vocab = {0};
    PoolGram *table = NULL;
    int32_t *slots = NULL;
    Py_ssize_t *lens = NULL, *sorted_lens = NULL;
    PyObject *rows = NULL, *lengths = NULL, *result = NULL;
    Py_ssize_t got = 0, n_lens = 0;
    if (!views || !split) {
        PyErr_NoMemory();
        goto done;
    }
    for (; got < n_files; got++)
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(fast, got), &views[got], PyBUF_SIMPLE) < 0)
            goto done;
    Py_ssize_t all = 0, ref_grams = 0;
    for (Py_ssize_t f = 0; f < n_files; f++) {
        if (split_block(views[f].buf, views[f].len, n_seg, &split[f], f, normalized) < 0)
            goto done;
        all += split[f].n_tok;
        if (f > 0)
            ref_grams += split[f].n_tok * (Py_ssize_t)max_order;
    }
    /* one numbering of every token of the corpus */
    if (vocab_start(&vocab, all) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t f = 0; f < n_files; f++) {
        const unsigned char *base = views[f].buf, *bend = base + views[f].len;
        for (Py_ssize_t t = 0; t < split[f].n_tok; t++) {
            int64_t id = vocab_id(&vocab, base + split[f].off[t], split[f].len[t], bend);
            if (id < 0) {
                PyErr_NoMemory();
                goto done;
            }
            split[f].ids[t] = (uint32_t)id;
        }
    }
    if (ref_grams > INT32_MAX / 4) {
        PyErr_SetString(PyExc_ValueError, "pooled: too many reference n-grams");
        goto done;
    }
    Py_ssize_t size = 16;
    while (size < 2 * ref_grams + 2)
        size *= 2;
    Py_ssize_t mask = size - 1, n_grams = 0;
    table = PyMem_Malloc((size_t)(ref_grams + 1) * sizeof(PoolGram));
    slots = PyMem_Malloc((size_t)size * sizeof(int32_t));
    lens = PyMem_Malloc((size_t)((n_files - 1) * n_seg + 1) * sizeof(Py_ssize_t));
    if (!table || !slots || !lens) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t x = 0; x < size; x++)
        slots[x] = -1;
    /* every reference segment's n-grams: their largest count in one segment */
    int64_t segment_id = 0;
    for (Py_ssize_t f = 1; f < n_files; f++) {
        for (Py_ssize_t seg = 0; seg < n_seg; seg++, segment_id++) {
            const uint32_t *r = split[f].ids + split[f].line_start[seg];
            Py_ssize_t m = split[f].line_start[seg + 1] - split[f].line_start[seg];
            lens[n_lens++] = m;
            for (Py_ssize_t i = 0; i < m; i++) {
                uint64_t hv = SEED;
                for (int n = 1; n <= max_order && i + n <= m; n++) {
                    hv = extend(hv, r[i + n - 1]);
                    Py_ssize_t sl = (Py_ssize_t)(hv & (uint64_t)mask);
                    for (;;) {
                        int32_t g = slots[sl];
                        if (g < 0) {
                            table[n_grams] = (PoolGram){hv, r + i, segment_id, -1, 1, 1, 0, n};
                            slots[sl] = (int32_t)n_grams++;
                            break;
                        }
                        PoolGram *x = &table[g];
                        if (x->hash == hv && x->order == n && same_ids(x->key, r + i, n)) {
                            if (x->last_ref != segment_id) {
                                x->last_ref = segment_id;
                                x->cur = 0;
                            }
                            if (++x->cur > x->max)
                                x->max = x->cur;
                            break;
                        }
                        sl = (sl + 1) & mask;
                    }
                }
            }
        }
    }
    if (!(rows = PyList_New(n_seg)) || !(lengths = PyList_New(n_lens)))
        goto done;
    sorted_lens = PyMem_Malloc((size_t)(n_lens + 1) * sizeof(Py_ssize_t));
    if (!sorted_lens) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(sorted_lens, lens, (size_t)n_lens * sizeof(Py_ssize_t));
    qsort(sorted_lens, (size_t)n_lens, sizeof(Py_ssize_t), compare_ssize);
    for (Py_ssize_t k = 0; k < n_lens; k++) {
        PyObject *v = PyLong_FromSsize_t(lens[k]);
        if (!v)
            goto done;
        PyList_SET_ITEM(lengths, k, v);
    }
    for (Py_ssize_t seg = 0; seg < n_seg; seg++) {
        const uint32_t *h = split[0].ids + split[0].line_start[seg];
        Py_ssize_t c = split[0].line_start[seg + 1] - split[0].line_start[seg];
        PyObject *row = PyList_New(2 * max_order + 2);
        if (!row)
            goto done;
        PyList_SET_ITEM(rows, seg, row);
        for (int n = 1; n <= max_order; n++) {
            int64_t matched = 0;
            for (Py_ssize_t i = 0; i + n <= c; i++) {
                uint64_t hv = SEED;
                for (int t = 0; t < n; t++)
                    hv = extend(hv, h[i + t]);
                Py_ssize_t sl = (Py_ssize_t)(hv & (uint64_t)mask);
                for (;;) {
                    int32_t g = slots[sl];
                    if (g < 0)
                        break;
                    PoolGram *x = &table[g];
                    if (x->hash == hv && x->order == n && same_ids(x->key, h + i, n)) {
                        if (x->last_hyp != seg) {
                            x->last_hyp = seg;
                            x->hyp = 0;
                        }
                        if (++x->hyp <= x->max)
                            matched++;
                        break;
                    }
                    sl = (sl + 1) & mask;
                }
            }
            PyList_SET_ITEM(row, n - 1, PyLong_FromLongLong(matched));
            PyList_SET_ITEM(row, max_order + n - 1, PyLong_FromSsize_t(c >= n ? c - n + 1 : 0));
        }
        /* the closest pooled length, ties to the shorter: the neighbours of c in the sorted
         * lengths */
        Py_ssize_t best = -1, lo = 0, hi = n_lens;
        while (lo < hi) {
            Py_ssize_t mid = (lo + hi) / 2;
            if (sorted_lens[mid] < c)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n_lens)
            best = sorted_lens[lo];
        if (lo > 0 && (best < 0 || c - sorted_lens[lo - 1] <= best - c))
            best = sorted_lens[lo - 1];
        PyList_SET_ITEM(row, 2 * max_order, PyLong_FromSsize_t(c));
        PyList_SET_ITEM(row, 2 * max_order + 1, PyLong_FromSsize_t(best < 0 ? 0 : best));
        for (Py_ssize_t x = 0; x < 2 * max_order + 2; x++)
            if (!PyList_GET_ITEM(row, x))
                goto done;
    }
    result = Py_BuildValue("(OO)", rows, lengths);
done:
    Py_XDECREF(rows);
    Py_XDECREF(lengths);
    if (split)
        for (Py_ssize_t f = 0; f < n_files; f++) {
            PyMem_Free(split[f].line_start);
            PyMem_Free(split[f].off);
            PyMem_Free(split[f].len);
            PyMem_Free(split[f].ids);
        }
    if (views)
        for (Py_ssize_t f = 0; f < got; f++)
            PyBuffer_Release(&views[f]);
    PyMem_Free(views);
    PyMem_Free(split);
    vocab_free(&vocab);
    PyMem_Free(table);
    PyMem_Free(slots);
    PyMem_Free(lens);
    PyMem_Free(sorted_lens);
    Py_DECREF(fast);
    return result;
}

static PyMethodDef methods[] = {
    {"script_counts", script_counts, METH_VARARGS,
     "script_counts(text: str, han, kana, hangul) -> (letters, han, kana, hangul): the counts "
     "of [^\\W\\d_] and of each tuple of (first, last) code point ranges."},
    {"tokenize", tokenize, METH_VARARGS,
     "tokenize(data: bytes, mode: int) -> bytes: every line's tokens joined by spaces, each "
     "line ended by LF (mode 0 = 13a, 1 = zh, 2 = char)."},
    {"intl", intl, METH_VARARGS,
     "intl(data: bytes, punctuation, symbols, numbers, rstrip: bool) -> bytes: every line's "
     "tokens under mteval-v14's international rules with the given classes (uint32 pairs of "
     "code points), joined by spaces, each line ended by LF."},
    {"pooled", pooled, METH_VARARGS,
     "pooled(chunks, n_seg, max_order, normalized=False) -> (rows, lengths): each hypothesis "
     "against every reference segment of the corpus pooled: rows [m_1..m_N, l_1..l_N, "
     "hyp_len, closest pooled length], and every reference segment's length."},
    {"counts", counts, METH_VARARGS,
     "counts(chunks, n_seg, max_order, per_segment, normalized=False) -> (matches, totals, "
     "hyp_len, ref_len, n_tokens, rows or None): exact BLEU statistics of line-aligned blocks "
     "split like str.split() (normalized: every block is tokenize()'s output, split at its "
     "spaces)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "bleu_compat._ckernel",
    "The whole-block fast path of bleu-compat score: 13a/zh/char tokens and exact BLEU counts.",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__ckernel(void)
{
    init_classes();
    return PyModule_Create(&module);
}
