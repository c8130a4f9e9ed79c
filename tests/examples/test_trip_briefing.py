"""The multi-agent example runs against the emulator, and its trace shows the tree."""

from examples.trip_briefing import FEEDBACK, respond, run

from steadyflow.testing.emulator import ProviderEmulator


async def test_the_briefing_fans_out_then_loops_until_the_critic_exits(capsys):
    async with ProviderEmulator(responder=respond) as emulator:
        trace = await run(emulator)

    assert trace.status == "ok"
    paths = [step.path for step in trace.steps]
    # the two research branches run at once: their steps interleave in any order
    assert (
        sorted(paths[:4])
        == [["briefing", "research", "events"]] * 2 + [["briefing", "research", "weather"]] * 2
    )
    assert paths[4:] == [
        ["briefing", "polish", "writer"],
        ["briefing", "polish", "critic"],
        ["briefing", "polish", "writer"],
        ["briefing", "polish", "critic"],
    ]
    assert [tool.name for tool in trace.steps[-1].tools] == ["exit_loop"]
    assert emulator.attempts("openai") == 8
    # the second draft was written from the critic's feedback and both branches' findings
    writer_requests = [r for r in emulator.requests if 'name is "writer"' in r.system]
    second_draft_request = writer_requests[1]
    assert FEEDBACK in second_draft_request.system
    assert "sunny" in second_draft_request.system and "fado" in second_draft_request.system
    printed = capsys.readouterr().out
    assert "  briefing\n    research\n" in printed and "    polish\n" in printed
