package dev.knotless.executor.node.agent;

import dev.knotless.executor.node.protocol.Action;
import dev.knotless.executor.node.protocol.Result;

/**
 * The subsystems the agent drives, one method per action. The runc + CNI implementation comes next.
 *
 * <p>Contract: every operation is idempotent on its own. The ledger is appended only after an
 * operation returns, so a crash between the host mutation and the append makes the agent run the
 * same operation again on restart; it must then converge on the same state and result (creating
 * an allocation that exists, deleting one that is gone, pulling a present image: all succeed).
 * No method runs a host command chosen by the action; {@link #runStep} runs inside the allocation's
 * container only.
 */
public interface Runtime {

    Result.Done pullImage(Action.PullImage action) throws RuntimeFailure;

    Result.Done createAllocation(Action.CreateAllocation action) throws RuntimeFailure;

    Result.AllocationRunning startAllocation(Action.StartAllocation action) throws RuntimeFailure;

    Result.Done upload(Action.Upload action) throws RuntimeFailure;

    Result.StepExited runStep(Action.RunStep action) throws RuntimeFailure;

    Result.Downloaded download(Action.Download action) throws RuntimeFailure;

    Result.Done stopAllocation(Action.StopAllocation action) throws RuntimeFailure;

    Result.Done deleteAllocation(Action.DeleteAllocation action) throws RuntimeFailure;

    Result.Done attachNetwork(Action.AttachNetwork action) throws RuntimeFailure;

    Result.AllocationList listAllocations(Action.ListAllocations action) throws RuntimeFailure;

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
