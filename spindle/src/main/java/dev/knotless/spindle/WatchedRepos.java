package dev.knotless.spindle;

import java.util.List;
import java.util.Optional;

/** The tangled repositories this spindle serves, as its setup records say. */
public interface WatchedRepos {

    /** One repository: its record's AT-URI, owner, name and knot. */
    record Watched(String atUri, String did, String name, String knot) {}

    List<Watched> all();

    default Optional<Watched> byAtUri(String atUri) {
        return all().stream().filter(w -> w.atUri().equals(atUri)).findFirst();
    }

    default Optional<Watched> byName(String knot, String did, String name) {
        return all().stream().filter(w -> w.knot().equals(knot) && w.did().equals(did) && w.name().equals(name)).findFirst();
    }
}
