"""``python -m reliability_lab``: the ``reliability-lab`` command (:mod:`reliability_lab.cli`)."""

from __future__ import annotations

import sys

from reliability_lab.cli import main

if __name__ == "__main__":
    sys.exit(main())
