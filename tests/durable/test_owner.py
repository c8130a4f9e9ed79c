"""Owners: a live pid keeps a lease only if it is the process that took it (not a recycled pid)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from steadyflow import LlmAgent, Runner
from steadyflow.durable import current_owner, owner_alive
from steadyflow.durable._process import process_started_at
from steadyflow.errors import NothingToResumeError
from steadyflow.sessions import InvocationOwner, InvocationStatus
from steadyflow.testing import ScriptedLlm

linux_only = pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc")


@pytest.fixture
def live_pid() -> Iterator[int]:
    """A process that lives until the test ends (it waits for its stdin to close)."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    yield child.pid
    assert child.stdin is not None
    child.stdin.close()
    child.wait()


@linux_only
def test_this_process_is_owned_with_its_real_start_time():
    owner = current_owner()
    assert owner.pid == os.getpid()
    assert owner.started_at == process_started_at(os.getpid())
    assert owner.started_at < time.time()


@linux_only
def test_a_live_pid_that_started_at_another_time_is_not_the_owner(live_pid):
    host = socket.gethostname()
    real = process_started_at(live_pid)
    assert real is not None
    assert owner_alive(InvocationOwner(host, live_pid, real))
    assert not owner_alive(InvocationOwner(host, live_pid, real - 3600.0))  # a recycled pid


def test_a_gone_pid_has_no_start_time_and_no_owner():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert process_started_at(child.pid) is None
    assert not owner_alive(InvocationOwner(socket.gethostname(), child.pid, 0.0))


async def held_by(service, owner: InvocationOwner) -> tuple[Runner, str]:
    """A session whose turn is RUNNING under ``owner``, its lease an hour from now."""
    model = ScriptedLlm(["first"])
    runner = Runner(app_name="app", agent=LlmAgent(name="a", model=model), session_service=service)
    session = await runner.create_session(user_id="u")
    [e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="hi")]
    (record,) = await service.list_invocations(app_name="app", user_id="u", session_id=session.id)
    record.status, record.owner = InvocationStatus.RUNNING, owner
    record.lease_expires_at = time.time() + 3600.0
    await service.update_invocation(record)
    return runner, session.id


@linux_only
async def test_a_lease_held_in_the_name_of_a_recycled_pid_is_resumed_at_once(service, live_pid):
    started = process_started_at(live_pid)
    assert started is not None
    recycled = InvocationOwner(socket.gethostname(), live_pid, started - 3600.0)
    runner, session_id = await held_by(service, recycled)
    [e async for e in runner.resume_async(user_id="u", session_id=session_id)]
    (record,) = await service.list_invocations(app_name="app", user_id="u", session_id=session_id)
    assert (record.status, record.resume_count) == (InvocationStatus.COMPLETED, 1)


@linux_only
async def test_a_lease_held_by_the_live_owner_is_never_taken(service, live_pid):
    started = process_started_at(live_pid)
    assert started is not None
    runner, session_id = await held_by(
        service, InvocationOwner(socket.gethostname(), live_pid, started)
    )
    with pytest.raises(NothingToResumeError, match="never taken over"):
        [e async for e in runner.resume_async(user_id="u", session_id=session_id)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_owns_its_records_as_itself_not_as_its_parent():
    parent = current_owner()  # made (and kept) before the fork
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report the owner it would record, then leave at once
        owner = current_owner()
        os.write(write, f"{owner.pid} {owner.started_at!r}".encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        child_pid, child_started = pipe.read().split()
    os.waitpid(pid, 0)
    assert int(child_pid) == pid != parent.pid
    assert float(child_started) != parent.started_at
    assert current_owner() is parent
