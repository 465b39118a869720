"""How vmodtool runs Python's cyclic garbage collector through work that
allocates many long-lived objects: a replay or an audit (events, pieces,
steps) and a cold module build (the scenario model, then the buildFile's
elements, with render workers forked in between).  No game or format
knowledge: one context manager, :func:`relaxed_gc`."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["relaxed_gc"]

_relaxed_depth = 0
#: whether the outermost relaxed_gc() froze the objects (it does not when
#: the program had frozen some itself: gc.unfreeze() would thaw those too)
_relaxed_froze = False
#: the frozen objects no program froze: Python 3.12+ starts with some
#: (375 on 3.12.1, and as many come back after an unfreeze), earlier
#: versions with none; more than these means the program froze objects
#: itself, and relaxed_gc leaves the freeze alone
_untouched_freeze = [gc.get_freeze_count()]


@contextmanager
def relaxed_gc() -> Iterator[None]:
    """Collect cyclic garbage rarely for a while.  A replay (and an audit
    of one) allocates many small long-lived objects — pieces, events,
    steps — that Python's cyclic GC would rescan over and over (≈40 % of
    the time on the TLD chain); none of them needs the cycle collector to
    be freed sooner.  The objects that exist when the outermost one starts
    (the logs' command trees, read just before, most of all) are frozen
    (``gc.freeze``) until it ends, unless the program froze objects itself:
    the collection the replay's allocations call for then scans only what
    the replay made, not every command read.

    A cold module build enters it once the scenario is loaded, before its
    render workers fork: they inherit the freeze, so their collections
    never walk (and copy-on-write fault in) the model and the modules the
    parent holds, and the buildFile's thousands of elements are made
    without a collection."""
    global _relaxed_depth, _relaxed_froze
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], 1_000_000), *threshold[1:])
    _relaxed_depth += 1
    if _relaxed_depth == 1 and gc.get_freeze_count() <= _untouched_freeze[0]:
        gc.freeze()
        _relaxed_froze = True
    try:
        yield
    finally:
        _relaxed_depth -= 1
        if _relaxed_depth == 0 and _relaxed_froze:
            _relaxed_froze = False
            # what the replay made goes to the oldest generation with what
            # was frozen (freeze then unfreeze moves every tracked object
            # there without a scan): restoring the threshold would otherwise
            # start a young collection of the whole replay's objects at the
            # next allocation (a tenth of the TLD chain's time); the cyclic
            # garbage among them goes at the next full collection
            gc.freeze()
            gc.unfreeze()
        gc.set_threshold(*threshold)
