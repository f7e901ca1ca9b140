package dev.knotless.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Executor;
import dev.knotless.executor.Session;
import dev.knotless.runner.forge.Forge;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

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

    @Test
    void theExecutorDecoratorOverridesEveryExecutorMethod() throws Exception {
        assertThat(missing(Executor.class, MeteredExecutor.class)).isEmpty();
        Class<?> session = Class.forName(MeteredExecutor.class.getName() + "$MeteredSession");
        assertThat(missing(Session.class, session)).isEmpty();
    }

    private static List<String> missing(Class<?> api, Class<?> decorator) {
        return Arrays.stream(api.getMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .filter(m -> !declares(decorator, m))
                .map(Method::toString)
                .toList();
    }

    private static boolean declares(Class<?> type, Method m) {
        try {
            type.getDeclaredMethod(m.getName(), m.getParameterTypes());
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
