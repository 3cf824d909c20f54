"""prhub run's fewer full collections: only while the run holds moto's heap, and put back however it ends."""
from __future__ import annotations

import gc

import pytest

from prhub_local.runner import FULL_COLLECTION_EVERY, few_full_collections


def test_full_collections_are_rarer_inside_and_the_thresholds_are_put_back_even_after_an_error() -> None:
    before = gc.get_threshold()
    with few_full_collections():
        inside = gc.get_threshold()
    assert inside == (before[0], before[1], max(before[2], FULL_COLLECTION_EVERY)) and inside[2] > 10
    assert gc.get_threshold() == before
    with pytest.raises(KeyboardInterrupt), few_full_collections():
        raise KeyboardInterrupt
    assert gc.get_threshold() == before
