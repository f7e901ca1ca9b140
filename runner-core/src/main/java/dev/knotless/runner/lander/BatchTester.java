package dev.knotless.runner.lander;

import dev.knotless.forge.Repository;
import java.io.IOException;

/** Runs a batch's workflows and says whether they passed. */
@FunctionalInterface
public interface BatchTester {

    /** What running a batch's workflows gave. */
    sealed interface Verdict {
        /** Every run succeeded (or no workflow runs for {@code batch} on the target). */
        record Passed() implements Verdict {}

        /** A run did not succeed; {@code why} names it and its reason on one line. */
        record Failed(String why) implements Verdict {}

        /** The runner is stopping: no verdict; the batch is tested again after the restart. */
        record Stopped() implements Verdict {}
    }

    /** Runs the workflows of {@code batch}'s commit and waits for them. */
    Verdict test(Repository repo, Batch batch) throws IOException;
}
