"""Deterministic random generators of the simulated model (one per purpose)."""

from __future__ import annotations

import hashlib
import json
import random

__all__ = ["rng_for"]


def rng_for(profile: str, seed: int | None, *parts: object) -> random.Random:
    """A generator determined by the profile, the request seed and ``parts``."""
    key = json.dumps([profile, seed, *map(str, parts)]).encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))
