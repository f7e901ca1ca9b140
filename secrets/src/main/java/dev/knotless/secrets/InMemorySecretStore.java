package dev.knotless.secrets;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/** {@link SecretStore#inMemory()}: a map of maps; nothing survives the process. */
final class InMemorySecretStore implements SecretStore {

    private final Map<String, Map<String, Secret>> byRepo = new ConcurrentHashMap<>();

    @Override
    public Optional<Secret> get(String repo, String name) {
        Objects.requireNonNull(name, "name");
        return Optional.ofNullable(byRepo.getOrDefault(Objects.requireNonNull(repo, "repo"), Map.of()).get(name));
    }

    @Override
    public List<String> names(String repo) {
        return List.copyOf(byRepo.getOrDefault(Objects.requireNonNull(repo, "repo"), Map.of()).keySet());
    }

    @Override
    public void put(String repo, Secret secret) {
        Objects.requireNonNull(secret, "secret");
        byRepo.computeIfAbsent(Objects.requireNonNull(repo, "repo"), r -> new ConcurrentSkipListMap<>())
                .put(secret.name(), secret);
    }

    @Override
    public boolean remove(String repo, String name) {
        Objects.requireNonNull(name, "name");
        Map<String, Secret> secrets = byRepo.get(Objects.requireNonNull(repo, "repo"));
        return secrets != null && secrets.remove(name) != null;
    }

    @Override
    public String toString() {
        return "SecretStore.inMemory()";
    }
}
