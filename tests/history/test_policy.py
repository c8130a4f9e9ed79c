import pytest

import steadyflow
from steadyflow import Compaction, HistoryPolicy, LlmAgent
from steadyflow.testing import ScriptedLlm


def test_a_policy_takes_one_cap_not_both():
    with pytest.raises(ValueError, match="max_events or max_tokens, not both"):
        HistoryPolicy(max_events=10, max_tokens=1000)


@pytest.mark.parametrize("field", ["max_events", "max_tokens", "warn_input_tokens"])
@pytest.mark.parametrize("value", [0, -3, True, 2.5])
def test_caps_and_thresholds_must_be_positive_ints(field, value):
    with pytest.raises(ValueError, match=rf"HistoryPolicy\.{field} must be a positive int"):
        HistoryPolicy(**{field: value})


def test_compaction_needs_a_cap():
    with pytest.raises(ValueError, match="compaction needs a cap"):
        HistoryPolicy(compaction=Compaction())


@pytest.mark.parametrize("fraction", [0, 1, 1.5, -0.1, float("nan")])
def test_keep_fraction_must_be_strictly_between_zero_and_one(fraction):
    with pytest.raises(ValueError, match="keep_fraction"):
        Compaction(keep_fraction=fraction)


def test_compaction_model_must_be_a_name_or_a_model():
    with pytest.raises(ValueError, match=r"Compaction\.model"):
        Compaction(model=42)  # type: ignore[arg-type]
    assert Compaction(model="gpt-4o-mini").model == "gpt-4o-mini"


def test_the_cap_is_read_in_its_own_unit():
    assert (HistoryPolicy(max_events=7).cap, HistoryPolicy(max_events=7).by_tokens) == (7, False)
    assert (HistoryPolicy(max_tokens=900).cap, HistoryPolicy(max_tokens=900).by_tokens) == (
        900,
        True,
    )
    assert HistoryPolicy(warn_input_tokens=10).cap is None


def test_an_agent_rejects_a_history_that_is_not_a_policy():
    with pytest.raises(ValueError, match="history must be a HistoryPolicy"):
        LlmAgent(name="a", model=ScriptedLlm([]), history={"max_events": 3})  # type: ignore[arg-type]


def test_the_policy_names_are_public():
    assert steadyflow.HistoryPolicy is HistoryPolicy
    assert steadyflow.Compaction is Compaction
