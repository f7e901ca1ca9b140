package dev.knotless.executor.kubernetes;

/**
 * What a {@link NetworkPolicyProbe} found: whether the cluster keeps an untrusted pod off the
 * network as its NetworkPolicy says. There is no third answer: a probe that could not decide is
 * {@link Unenforced}, so untrusted runs fail closed.
 */
sealed interface PolicyVerdict {

    /** One line saying what the probe saw, for the refusal and the start notice. */
    String why();

    /** An untrusted pod tried to reach the runner and could not. */
    record Enforced(String why) implements PolicyVerdict {}

    /** An untrusted pod reached the runner, or the probe could not tell (why says which). */
    record Unenforced(String why) implements PolicyVerdict {}
}
