"""Key points are sentences of the description about the change, never its scaffolding (issue 23)."""
from __future__ import annotations

from prhub.engine import synopsis, textparse


def test_chart_legends_reader_instructions_and_raw_arithmetic_are_no_key_points():
    body = ("### What does this PR do?\n\n"
            "- Fuse the router kernel so MoE layers skip one all-to-all per step.\n"
            "- The other two lines: vllm as reference, sglang as baseline.\n"
            "- Green line: trtllm with the fused router.\n"
            "- Prepare your function tool definition python file.\n"
            "- cp_rank 0: remain_start = 4804 - 1201 = 3603\n"
            "- Make sure your config sets `use_fused=True` before launching.\n"
            "- Cache the routing table between micro-batches.\n")
    points = synopsis.key_points(textparse.strip_template(body))
    assert points == ["Fuse the router kernel so MoE layers skip one all-to-all per step.",
                      "Cache the routing table between micro-batches."]


def test_a_point_that_only_mentions_you_or_a_formula_in_passing_stays():
    body = ("### What does this PR do?\n\n"
            "- Lets you pick the loss aggregation with `loss_agg_mode = token-mean`.\n"
            "- Splits the batch as `n = bsz // dp` so each rank gets the same number of samples.\n")
    points = synopsis.key_points(textparse.strip_template(body))
    assert len(points) == 2
