package dev.knotless.node.agent;

import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;

/**
 * A process for {@link AgentCrashIT} to kill while it compacts a ledger and appends to it: it opens
 * the ledger (which compacts it), then appends {@code c-0, c-1, …} and prints each key once its
 * append returned, that is once it is recorded.
 *
 * <p>Arguments: ledger file.
 */
public final class LedgerCompactionChild {

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        try (Ledger ledger = Ledger.open(file, MacKey.loadOrCreate(file.resolveSibling("ledger.key")), new ProtocolJson(),
                Clock.systemUTC())) {
            System.out.println("opened");
            System.out.flush();
            for (int i = 0; ; i++) {
                ledger.append("c-" + i, ("payload " + i).getBytes(StandardCharsets.UTF_8), new Result.Done());
                System.out.println("c-" + i);
                System.out.flush();
            }
        }
    }
}
