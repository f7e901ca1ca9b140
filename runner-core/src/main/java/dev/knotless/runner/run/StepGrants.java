package dev.knotless.runner.run;

import dev.knotless.checks.Event;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.secrets.Grants;
import dev.knotless.secrets.Masker;
import dev.knotless.secrets.SecretStore;
import java.util.List;

/**
 * Each step's secrets (docs/design/secrets.md): pushes, manual and scheduled runs get the names a
 * step asks for and the repository has (its deployment environment's over them); pull and batch
 * runs get none.
 */
final class StepGrants {

    private StepGrants() {}

    /** Each step's grant, by step index. */
    static List<Grants.Granted> of(RunRequest r, SecretStore secrets) {
        boolean mayHaveSecrets = r.event() == Event.PUSH || r.event() == Event.MANUAL || r.event() == Event.SCHEDULE;
        return r.workflow().steps().stream()
                .map(step -> step.secrets().isEmpty() ? Grants.Granted.NONE
                        : Grants.grant(step.secrets(), r.repo(), r.environment() == null ? null : r.environment().name(),
                                secrets, mayHaveSecrets))
                .toList();
    }

    /** The masker of a run with {@code grants}: every value granted to any of its steps. */
    static Masker masker(List<Grants.Granted> grants) {
        return Masker.of(grants.stream().flatMap(g -> g.values().stream()).toList());
    }
}
