package dev.knotless.runner.state;

import java.nio.file.Path;

/**
 * Run in a child JVM by {@link StateStoreDurabilityTest}: enqueues runs one by one, printing each id
 * only after {@link StateStore#enqueue} returned, until it is killed.
 */
public final class EnqueueUntilKilled {

    private EnqueueUntilKilled() {}

    public static void main(String[] args) throws Exception {
        StateStore store = StateStore.open(Path.of(args[0]));
        for (int i = 0; ; i++) {
            String id = "run-" + i;
            store.runs().enqueue(StateStoreTest.run(id, "acme/repo-" + (i % 3)));
            if (i % 2 == 0) {
                store.runs().takeNext(Integer.MAX_VALUE);
            }
            System.out.println(id);
            System.out.flush();
        }
    }
}
