package dev.knotless.http;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.Executor;
import dev.knotless.executor.Session;
import dev.knotless.forge.CheckPublisher;
import dev.knotless.forge.Forge;
import dev.knotless.forge.ForgeEvent;
import dev.knotless.forge.Repository;
import dev.knotless.runner.state.StateStore;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metering decorators must pass on every method of what they wrap: a default method they do not
 * override would silently answer with the default (a forge without a merge queue, say) instead of
 * the real forge's answer.
 */
class MeteredForgeTest {

    @Test
    void theForgeDecoratorOverridesEveryForgeMethod() {
        assertThat(missing(Forge.class, MeteredForge.class)).isEmpty();
    }

    /** A run's start went nowhere while the metered publisher left {@code started} to its default. */
    @Test
    void thePublisherDecoratorOverridesEveryPublisherMethod(@TempDir Path dir) throws Exception {
        Forge forge = new Forge() {
            @Override
            public List<Repository> repositories() {
                return List.of();
            }

            @Override
            public List<ForgeEvent> poll(Repository repo) {
                return List.of();
            }

            @Override
            public void acknowledge(Repository repo, ForgeEvent event) {}

            @Override
            public CheckPublisher publisher() {
                return CheckPublisher.NONE;
            }
        };
        try (StateStore state = StateStore.open(dir)) {
            assertThat(missing(CheckPublisher.class, new DaemonMetrics(state).forge(forge).publisher().getClass())).isEmpty();
        }
    }

    @Test
    void theExecutorDecoratorOverridesEveryExecutorMethod() throws Exception {
        assertThat(missing(Executor.class, MeteredExecutor.class)).isEmpty();
        Class<?> session = Class.forName(MeteredExecutor.class.getName() + "$MeteredSession");
        assertThat(missing(Session.class, session)).isEmpty();
    }

    @Test
    void everyPollIsTimedAFailedOneToo(@TempDir Path dir) throws Exception {
        Repository up = new Repository("acme/up", "/srv/up", "main", List.of("r1"), List.of());
        Forge forge = new Forge() {
            @Override
            public List<Repository> repositories() {
                return List.of(up);
            }

            @Override
            public List<ForgeEvent> poll(Repository repo) throws IOException {
                if (repo != up) {
                    throw new IOException("gone");
                }
                return List.of();
            }

            @Override
            public void acknowledge(Repository repo, ForgeEvent event) {}

            @Override
            public CheckPublisher publisher() {
                return null;
            }
        };
        try (StateStore state = StateStore.open(dir)) {
            DaemonMetrics metrics = new DaemonMetrics(state);
            Forge metered = metrics.forge(forge);
            metered.poll(up);
            assertThatThrownBy(() -> metered.poll(new Repository("acme/gone", "/srv/gone", "main", List.of("r1"), List.of())))
                    .hasMessage("gone");
            assertThat(metrics.scrape()).contains("knotless_forge_poll_seconds_count 2");
        }
    }

    private static List<String> missing(Class<?> api, Class<?> decorator) {
        return Arrays.stream(api.getMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .filter(m -> !declares(decorator, m))
                .map(Method::toString)
                .toList();
    }

    /** Declared by the class or a class it extends (a forwarding base): never left to an interface's default. */
    private static boolean declares(Class<?> type, Method m) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            try {
                c.getDeclaredMethod(m.getName(), m.getParameterTypes());
                return true;
            } catch (NoSuchMethodException e) {
                // the class it extends, then
            }
        }
        return false;
    }
}
