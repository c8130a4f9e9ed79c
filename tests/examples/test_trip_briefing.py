"""The multi-agent example runs against the emulator, and its trace shows the tree."""

from examples.trip_briefing import FEEDBACK, respond, run

from steadyflow.testing.emulator import ProviderEmulator


async def test_the_briefing_fans_out_then_loops_until_the_critic_exits(capsys):
    async with ProviderEmulator(responder=respond) as emulator:
        trace = await run(emulator)

    assert trace.status == "ok"
    assert [step.path for step in trace.steps] == [
        ["briefing", "research", "weather"],
        ["briefing", "research", "events"],
        ["briefing", "research", "weather"],
        ["briefing", "research", "events"],
        ["briefing", "polish", "writer"],
        ["briefing", "polish", "critic"],
        ["briefing", "polish", "writer"],
        ["briefing", "polish", "critic"],
    ]
    assert [tool.name for tool in trace.steps[-1].tools] == ["exit_loop"]
    assert emulator.attempts("openai") == 8
    # the second draft was written from the critic's feedback and both branches' findings
    second_draft_request = emulator.requests[6]
    assert FEEDBACK in second_draft_request.system
    assert "sunny" in second_draft_request.system and "fado" in second_draft_request.system
    printed = capsys.readouterr().out
    assert "  briefing\n    research\n" in printed and "    polish\n" in printed
