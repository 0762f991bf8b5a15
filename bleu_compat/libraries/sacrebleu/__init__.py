"""sacreBLEU: its adapter (calling the real library), its dialect model and its catalog entries."""
