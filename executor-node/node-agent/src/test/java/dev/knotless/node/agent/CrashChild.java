package dev.knotless.node.agent;

import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.KeyFiles;
import dev.knotless.node.protocol.KeysetFile;
import dev.knotless.node.protocol.Outcome;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Result;
import dev.knotless.node.protocol.Signer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;

/**
 * An agent process for {@link AgentCrashIT}: handles one frame against a ledger and a file-backed
 * runtime, prints the outcome's kind, and exits. With "block", the runtime signals after its host
 * mutation and then waits to be killed, before the agent can append to the ledger.
 *
 * <p>Arguments: state directory, frame file, "block" or "run".
 */
public final class CrashChild {

    public static void main(String[] args) throws Exception {
        Path state = Path.of(args[0]);
        byte[] frame = Files.readAllBytes(Path.of(args[1]));
        boolean block = args[2].equals("block");
        ProtocolJson json = new ProtocolJson();
        try (Ledger ledger = Ledger.open(state.resolve("ledger"), json)) {
            Agent agent = new Agent("node-a", new KeysetFile(state.resolve("trusted-keys")), ledger,
                    new FileRuntime(state.resolve("host"), block ? state.resolve("mutated") : null),
                    new Signer("node-a-id", KeyFiles.readPrivateKey(state.resolve("node.key")), json),
                    json, Clock.systemUTC());
            Outcome outcome = agent.handle(frame);
            System.out.println(outcome.getClass().getSimpleName() + " " + ledger.replay().entries() + " " + ledger.size());
        }
    }

    /**
     * Host state as files: an allocation is a directory, and each real creation appends a line to
     * mutations.log. Creating an allocation that exists changes nothing, as the runtime contract asks,
     * so "done once" is visible as exactly one line.
     */
    static final class FileRuntime implements AllocationRuntime {
        private final Path host;
        private final Path signalAfterMutation;

        FileRuntime(Path host, Path signalAfterMutation) {
            this.host = host;
            this.signalAfterMutation = signalAfterMutation;
        }

        @Override
        public Result.Done createAllocation(Action.CreateAllocation action) throws RuntimeFailure {
            try {
                Path dir = host.resolve("allocations").resolve(action.allocation());
                if (!Files.isDirectory(dir)) {
                    Files.createDirectories(dir);
                    Files.writeString(host.resolve("mutations.log"), "created " + action.allocation() + "\n",
                            StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.SYNC);
                }
                if (signalAfterMutation != null) {
                    Files.writeString(signalAfterMutation, "mutated\n");
                    Thread.sleep(Long.MAX_VALUE);
                }
                return new Result.Done();
            } catch (IOException e) {
                throw new RuntimeFailure(e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RuntimeFailure("interrupted");
            }
        }

        @Override
        public Result.Done pullImage(Action.PullImage action) throws RuntimeFailure {
            throw unused();
        }

        @Override
        public Result.AllocationRunning startAllocation(Action.StartAllocation action) throws RuntimeFailure {
            throw unused();
        }

        @Override
        public Result.Received upload(Action.Upload action, java.io.InputStream tar) throws RuntimeFailure {
            throw unused();
        }

        @Override
        public Result.StepExited runStep(Action.RunStep action, Attachment.StepOutput output) throws RuntimeFailure {
            throw unused();
        }

        @Override
        public Result.Downloaded download(Action.Download action, java.io.OutputStream tar) throws RuntimeFailure {
            throw unused();
        }

        @Override
        public Result.Done stopAllocation(Action.StopAllocation action) throws RuntimeFailure {
            throw unused();
        }

        @Override
        public Result.Done deleteAllocation(Action.DeleteAllocation action) throws RuntimeFailure {
            throw unused();
        }

        @Override
        public Result.Done attachNetwork(Action.AttachNetwork action) throws RuntimeFailure {
            throw unused();
        }

        @Override
        public Result.AllocationList listAllocations(Action.ListAllocations action) throws RuntimeFailure {
            throw unused();
        }

        @Override
        public Result.ServiceLog readServiceLog(Action.ReadServiceLog action) throws RuntimeFailure {
            throw unused();
        }

        private static RuntimeFailure unused() {
            return new RuntimeFailure("not used by the crash test");
        }
    }
}
