"""pytest settings for the whole checkout (the suites' own fixtures are in tests/conftest.py).

The stub files of old import paths (:mod:`reliability_lab._moved`) are not collected for
doctests: importing one warns and hands out the moved module, whose doctests already run under
its own path.
"""

from reliability_lab._moved import MOVED

collect_ignore = [old.replace(".", "/") + ".py" for old in MOVED]
