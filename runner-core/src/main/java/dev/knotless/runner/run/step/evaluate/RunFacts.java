package dev.knotless.runner.run.step.evaluate;

import dev.knotless.checks.Event;
import dev.knotless.plan.RunFact;
import dev.knotless.runner.run.request.NeededRun;
import dev.knotless.runner.run.request.RunRequest;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The facts of a run that its request decides ({@link RunFact#COMMIT}, {@link RunFact#REF}, ...),
 * as text, the repository's configuration variables it is given ({@link RunFact#CONFIGURATION}),
 * and how the runs it needs ended; the facts its steps make are {@link StepValues}'.
 */
public record RunFacts(Map<RunFact, String> values, Map<String, String> configuration, List<NeededRun> needed) {

    public RunFacts {
        values = Map.copyOf(values);
        configuration = Collections.unmodifiableMap(new TreeMap<>(configuration));
        needed = List.copyOf(needed);
    }

    /** The facts of the run {@code request} asks for. */
    public static RunFacts of(RunRequest request) {
        return of(request.repo(), request.defaultRef(), request.commit(), request.ref(), request.event(), request.runId(),
                request.needed()).withConfiguration(request.configuration());
    }

    /** The same facts, with {@code variables} as the repository's configuration variables. */
    public RunFacts withConfiguration(Map<String, String> variables) {
        return new RunFacts(values, variables, needed);
    }

    /**
     * The facts of a run of {@code commit} of {@code repo} (whose default branch is {@code
     * defaultRef}), reached by {@code ref}, made by {@code event}, after the runs it {@code needed}.
     */
    public static RunFacts of(String repo, String defaultRef, String commit, String ref, Event event, String runId,
            List<NeededRun> needed) {
        Map<RunFact, String> facts = new EnumMap<>(RunFact.class);
        facts.put(RunFact.COMMIT, commit);
        facts.put(RunFact.REF, ref);
        facts.put(RunFact.REF_NAME, shortName(ref));
        facts.put(RunFact.REF_TYPE, ref.startsWith("refs/heads/") ? "branch" : ref.startsWith("refs/tags/") ? "tag" : "");
        facts.put(RunFact.EVENT, event.wireName());
        String[] owned = ownerAndName(repo);
        facts.put(RunFact.REPOSITORY, owned[0] + "/" + owned[1]);
        facts.put(RunFact.REPOSITORY_OWNER, owned[0]);
        facts.put(RunFact.REPOSITORY_NAME, owned[1]);
        facts.put(RunFact.SERVER_URL, serverUrl(repo));
        facts.put(RunFact.DEFAULT_BRANCH, shortName(defaultRef));
        facts.put(RunFact.RUN_ID, runId);
        facts.put(RunFact.ARCH, arch(System.getProperty("os.arch", "")));
        return new RunFacts(facts, Map.of(), needed);
    }

    /**
     * {@code OWNER} and {@code NAME} of the repository cloned from {@code location} (a URL, an scp-like
     * {@code host:path}, or a path): its last two parts, a {@code .git} dropped; a location of one
     * part is its own owner.
     */
    static String[] ownerAndName(String location) {
        List<String> parts = new java.util.ArrayList<>();
        for (String part : location.split("[/:]")) {
            if (!part.isEmpty()) {
                parts.add(part);
            }
        }
        if (parts.isEmpty()) {
            return new String[] {location, location};
        }
        String name = parts.getLast();
        name = name.endsWith(".git") && name.length() > 4 ? name.substring(0, name.length() - 4) : name;
        return new String[] {parts.size() > 1 ? parts.get(parts.size() - 2) : name, name};
    }

    /** The scheme and host (and port) of an http(s) {@code location}; GitHub's address for any other. */
    static String serverUrl(String location) {
        try {
            java.net.URI uri = java.net.URI.create(location);
            if (("https".equals(uri.getScheme()) || "http".equals(uri.getScheme())) && uri.getHost() != null) {
                return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
            }
        } catch (IllegalArgumentException e) {
            // a path or an scp-like location: no address of its own
        }
        return "https://github.com";
    }

    private static String shortName(String ref) {
        return ref.startsWith("refs/heads/") ? ref.substring("refs/heads/".length())
                : ref.startsWith("refs/tags/") ? ref.substring("refs/tags/".length()) : ref;
    }

    /** The architecture as GitHub's runner names it ({@code X64}, {@code ARM64}, {@code X86}, {@code ARM}). */
    static String arch(String osArch) {
        return switch (osArch.toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64" -> "X64";
            case "aarch64", "arm64" -> "ARM64";
            case "x86", "i386", "i686" -> "X86";
            case "arm" -> "ARM";
            default -> osArch.toUpperCase(Locale.ROOT);
        };
    }

    /** The fact's text; empty for one the request does not decide. */
    String get(RunFact fact) {
        return values.getOrDefault(fact, "");
    }
}
