package dev.knotless.executor.kubernetes;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Trust;
import dev.knotless.time.Ticker;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets an untrusted run start only where its NetworkPolicy is enforced, or where the operator
 * accepted that it may not be ({@code --accept-unenforced-network-policy}). A policy the
 * cluster's network plugin ignores is a promise nobody keeps: an untrusted pod on such a cluster
 * reached a listener on the host. The verdict is probed at the first untrusted run and again when
 * it is older than the interval (a network plugin can be replaced under a running runner); between
 * probes it is cached, since a probe costs a pod. Thread-safe: concurrent starts share one probe.
 */
final class UntrustedGate {

    /** How often the verdict is probed again. */
    static final Duration REPROBE = Duration.ofMinutes(10);
    static final String FLAG = "--accept-unenforced-network-policy";

    private static final Logger log = LoggerFactory.getLogger(UntrustedGate.class);

    private final NetworkPolicyProbe probe;
    private final Ticker ticker;
    private final Duration interval;
    private final boolean accepted;
    private @Nullable PolicyVerdict verdict;
    private long probedAt;

    /** @param accepted the operator runs untrusted work even where the policy is not enforced */
    UntrustedGate(NetworkPolicyProbe probe, Ticker ticker, Duration interval, boolean accepted) {
        this.probe = probe;
        this.ticker = ticker;
        this.interval = interval;
        this.accepted = accepted;
    }

    /**
     * Lets {@code spec} start, or refuses it with a one-line reason (the check ends as error).
     * Trusted runs pass without a probe.
     */
    void admit(RunSpec spec) throws ExecutorException {
        if (spec.trust() != Trust.UNTRUSTED) {
            return;
        }
        if (verdict(spec.runnerId()) instanceof PolicyVerdict.Unenforced(String why)) {
            if (!accepted) {
                throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "untrusted runs refused: this cluster does not"
                        + " enforce NetworkPolicy (probe: " + why + "); " + FLAG + " runs them anyway");
            }
            log.warn("untrusted run despite unenforced NetworkPolicy run={} probe={} accepted-by={}", spec.runId(), why, FLAG);
        }
    }

    /** The cached verdict, probed first when there is none or it is older than the interval. */
    synchronized PolicyVerdict verdict(String runnerId) {
        if (verdict == null || ticker.nanos() - probedAt >= interval.toNanos()) {
            verdict = probe.probe(runnerId);
            probedAt = ticker.nanos();
            log.info("network policy probed runner={} verdict={} why={}", runnerId,
                    verdict.getClass().getSimpleName(), verdict.why());
        }
        return verdict;
    }

    /** The last verdict, if a probe has run. */
    synchronized Optional<PolicyVerdict> last() {
        return Optional.ofNullable(verdict);
    }

    /**
     * What the start notice says of the policy's enforcement, after the policy itself: what the
     * last probe found and, with the flag, the risk the operator accepted.
     */
    String describe() {
        Optional<PolicyVerdict> last = last();
        if (last.isPresent() && last.get() instanceof PolicyVerdict.Enforced) {
            return "enforced on this cluster (probe: " + last.get().why() + ")";
        }
        if (last.isEmpty()) {
            return accepted ? "enforcement not probed yet; run even if unenforced (" + FLAG + ")"
                    : "enforcement probed before the first untrusted run, which is refused if it is not enforced";
        }
        return accepted ? "NetworkPolicy is not enforced on this cluster (probe: " + last.get().why()
                + "); running untrusted anyway (" + FLAG + ")"
                : "not enforced on this cluster (probe: " + last.get().why() + "): untrusted runs are refused";
    }
}
