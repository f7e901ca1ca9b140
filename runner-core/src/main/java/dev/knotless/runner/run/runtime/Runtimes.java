package dev.knotless.runner.run.runtime;

import java.util.Map;
import java.util.Optional;

/** The runtimes this runner can bring into a run, by name ({@code node}). */
public record Runtimes(Map<String, HostRuntime> byName) {

    /** A runner that brings nothing. */
    public static final Runtimes NONE = new Runtimes(Map.of());

    public Runtimes {
        byName = Map.copyOf(byName);
    }

    public Optional<HostRuntime> find(String name) {
        return Optional.ofNullable(byName.get(name));
    }
}
