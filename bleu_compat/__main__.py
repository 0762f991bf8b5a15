"""``python -m bleu_compat`` runs the command line."""

from bleu_compat.cli import main

raise SystemExit(main())
