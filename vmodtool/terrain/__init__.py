"""Terrain read from a board image: the features of each hex and hexside
(:mod:`~vmodtool.terrain.features`), classifiers that learn from a few
labelled ones (:mod:`~vmodtool.terrain.classify`) and the scenario sections
they make (:mod:`~vmodtool.terrain.derive`).  Needs numpy (the ``terrain``
extra)."""
