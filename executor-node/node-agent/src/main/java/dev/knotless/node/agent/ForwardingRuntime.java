package dev.knotless.node.agent;

import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Result;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * A runtime that passes every action to another: the base of a wrapper in front of the runtime,
 * which overrides only what it adds (as {@code ForwardingSession} does for a session).
 */
abstract class ForwardingRuntime implements AllocationRuntime {

    protected final AllocationRuntime runtime;

    protected ForwardingRuntime(AllocationRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public Result.Done pullImage(Action.PullImage action) throws RuntimeFailure {
        return runtime.pullImage(action);
    }

    @Override
    public Result.Done createAllocation(Action.CreateAllocation action) throws RuntimeFailure {
        return runtime.createAllocation(action);
    }

    @Override
    public Result.AllocationRunning startAllocation(Action.StartAllocation action) throws RuntimeFailure {
        return runtime.startAllocation(action);
    }

    @Override
    public Result.Received upload(Action.Upload action, InputStream tar) throws RuntimeFailure {
        return runtime.upload(action, tar);
    }

    @Override
    public Result.StepExited runStep(Action.RunStep action, Attachment.StepOutput output) throws RuntimeFailure {
        return runtime.runStep(action, output);
    }

    @Override
    public Result.Downloaded download(Action.Download action, OutputStream tar) throws RuntimeFailure {
        return runtime.download(action, tar);
    }

    @Override
    public Result.Done stopAllocation(Action.StopAllocation action) throws RuntimeFailure {
        return runtime.stopAllocation(action);
    }

    @Override
    public Result.Done deleteAllocation(Action.DeleteAllocation action) throws RuntimeFailure {
        return runtime.deleteAllocation(action);
    }

    @Override
    public Result.Done attachNetwork(Action.AttachNetwork action) throws RuntimeFailure {
        return runtime.attachNetwork(action);
    }

    @Override
    public Result.AllocationList listAllocations(Action.ListAllocations action) throws RuntimeFailure {
        return runtime.listAllocations(action);
    }

    @Override
    public Result.ServiceLog readServiceLog(Action.ReadServiceLog action) throws RuntimeFailure {
        return runtime.readServiceLog(action);
    }
}
