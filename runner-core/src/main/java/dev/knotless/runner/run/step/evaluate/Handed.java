package dev.knotless.runner.run.step.evaluate;

import java.util.Map;

/** What the steps before handed back that a later value reads: variables for the steps after, outputs by step. */
public interface Handed {

    /** Before any step: nothing handed back. */
    Handed NOTHING = new Handed() {
        @Override
        public Map<String, String> environment() {
            return Map.of();
        }

        @Override
        public Map<String, String> outputsOf(int number) {
            return Map.of();
        }

        @Override
        public Map<String, String> stateOf(int number) {
            return Map.of();
        }
    };

    /** The variables handed back so far, in the order first set. */
    Map<String, String> environment();

    /** Step {@code number}'s outputs, unmasked. */
    Map<String, String> outputsOf(int number);

    /** What step {@code number} saved ({@code GITHUB_STATE}), for the post step that reads it. */
    Map<String, String> stateOf(int number);
}
