"""One module per notebook: its checkers, widgets and plot helpers."""
