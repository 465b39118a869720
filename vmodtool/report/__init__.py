"""``vmodtool report``: a game as one self-contained HTML page (the scene of
every step as per-step changes, moves, chat, dice, findings)."""
