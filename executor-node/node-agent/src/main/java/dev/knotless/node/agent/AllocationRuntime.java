package dev.knotless.node.agent;

import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Result;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The subsystems the agent drives, one method per action. Implemented over runc and CNI by {@code RuncRuntime}.
 *
 * <p>Contract: every operation is idempotent on its own. The ledger is appended only after an
 * operation returns, so a crash between the host mutation and the append makes the agent run the
 * same operation again on restart; it must then converge on the same state and result (creating
 * an allocation that exists, deleting one that is gone, pulling a present image: all succeed; a
 * step sent again attaches to the one running instead of running twice).
 * No method runs a host command chosen by the action; {@link #runStep} runs inside the allocation's
 * container only. The streams are the action's {@link Attachment}s.
 */
public interface AllocationRuntime {

    Result.Done pullImage(Action.PullImage action) throws RuntimeFailure;

    Result.Done createAllocation(Action.CreateAllocation action) throws RuntimeFailure;

    Result.AllocationRunning startAllocation(Action.StartAllocation action) throws RuntimeFailure;

    Result.Received upload(Action.Upload action, InputStream tar) throws RuntimeFailure;

    Result.StepExited runStep(Action.RunStep action, Attachment.StepOutput output) throws RuntimeFailure;

    Result.Downloaded download(Action.Download action, OutputStream tar) throws RuntimeFailure;

    Result.Done stopAllocation(Action.StopAllocation action) throws RuntimeFailure;

    Result.Done deleteAllocation(Action.DeleteAllocation action) throws RuntimeFailure;

    Result.Done attachNetwork(Action.AttachNetwork action) throws RuntimeFailure;

    Result.AllocationList listAllocations(Action.ListAllocations action) throws RuntimeFailure;

    Result.ServiceLog readServiceLog(Action.ReadServiceLog action) throws RuntimeFailure;

    /** An operation could not be done (no such allocation, image pull failed, …); nothing is recorded. */
    final class RuntimeFailure extends Exception {
        public RuntimeFailure(String message) {
            super(message);
        }

        public RuntimeFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
