package dev.knotless.node.agent;

import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Result;
import java.util.ArrayList;
import java.util.List;

/**
 * Records the actions that reach the runtime and answers plausibly. These tests are about the
 * protocol (what is allowed to reach the runtime, and how often), not about running containers, so
 * no container runtime is involved; runc comes with the runtime itself.
 */
class RecordingRuntime implements AllocationRuntime {

    final List<Action> calls = new ArrayList<>();
    /** When set, the next call fails with this message: a fault the recording runtime cannot have by itself. */
    String failNext;

    @Override
    public synchronized Result.Done pullImage(Action.PullImage action) throws RuntimeFailure {
        record(action);
        return new Result.Done();
    }

    @Override
    public synchronized Result.Done createAllocation(Action.CreateAllocation action) throws RuntimeFailure {
        record(action);
        return new Result.Done();
    }

    @Override
    public synchronized Result.AllocationRunning startAllocation(Action.StartAllocation action) throws RuntimeFailure {
        record(action);
        return new Result.AllocationRunning(action.allocation());
    }

    @Override
    public synchronized Result.Received upload(Action.Upload action, java.io.InputStream tar) throws RuntimeFailure {
        record(action);
        return new Result.Received(action.allocation(), action.path(), 0, "0".repeat(64));
    }

    @Override
    public synchronized Result.StepExited runStep(Action.RunStep action, Attachment.StepOutput output) throws RuntimeFailure {
        record(action);
        return new Result.StepExited(action.allocation(), action.step(), action.payload().length % 7, 12, 0, 0);
    }

    @Override
    public synchronized Result.Downloaded download(Action.Download action, java.io.OutputStream tar) throws RuntimeFailure {
        record(action);
        return new Result.Downloaded(action.allocation(), action.path(), 3, "1".repeat(64));
    }

    @Override
    public synchronized Result.Done stopAllocation(Action.StopAllocation action) throws RuntimeFailure {
        record(action);
        return new Result.Done();
    }

    @Override
    public synchronized Result.Done deleteAllocation(Action.DeleteAllocation action) throws RuntimeFailure {
        record(action);
        return new Result.Done();
    }

    @Override
    public synchronized Result.Done attachNetwork(Action.AttachNetwork action) throws RuntimeFailure {
        record(action);
        return new Result.Done();
    }

    @Override
    public synchronized Result.AllocationList listAllocations(Action.ListAllocations action) throws RuntimeFailure {
        record(action);
        return new Result.AllocationList(List.of());
    }

    @Override
    public synchronized Result.ServiceLog readServiceLog(Action.ReadServiceLog action) throws RuntimeFailure {
        record(action);
        return new Result.ServiceLog(action.allocation(), action.service(), new byte[0]);
    }

    private void record(Action action) throws RuntimeFailure {
        calls.add(action);
        if (failNext != null) {
            String message = failNext;
            failNext = null;
            throw new RuntimeFailure(message);
        }
    }

    synchronized int count() {
        return calls.size();
    }
}
