package dev.knotless.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** What every {@link SecretStore} does; extended once per implementation. */
abstract class SecretStoreContract {

    abstract SecretStore store();

    @Test
    void aStoredSecretComesBackUnchanged() {
        SecretStore store = store();
        Secret secret = new Secret("TOKEN", "ünïcödé 'quotes' $(x) `y` \\ %s\nsecond line\u2028😀");

        store.put("acme/app", secret);

        assertThat(store.get("acme/app", "TOKEN")).contains(secret);
    }

    @Test
    void aMissingSecretIsEmpty() {
        SecretStore store = store();
        store.put("acme/app", new Secret("A", "one"));

        assertThat(store.get("acme/app", "B")).isEmpty();
        assertThat(store.get("acme/other", "A")).isEmpty();
    }

    @Test
    void namesAreSortedAndPerRepository() {
        SecretStore store = store();
        store.put("acme/app", new Secret("ZED", "1"));
        store.put("acme/app", new Secret("ALPHA", "2"));
        store.put("acme/lib", new Secret("OTHER", "3"));

        assertThat(store.names("acme/app")).containsExactly("ALPHA", "ZED");
        assertThat(store.names("acme/lib")).containsExactly("OTHER");
        assertThat(store.names("acme/none")).isEmpty();
    }

    @Test
    void putReplacesASecretOfTheSameName() {
        SecretStore store = store();
        store.put("acme/app", new Secret("TOKEN", "old"));
        store.put("acme/app", new Secret("TOKEN", "new"));

        assertThat(store.get("acme/app", "TOKEN")).map(Secret::value).contains("new");
        assertThat(store.names("acme/app")).containsExactly("TOKEN");
    }

    @Test
    void removeSaysWhetherTheSecretWasSet() {
        SecretStore store = store();
        store.put("acme/app", new Secret("A", "1"));
        store.put("acme/app", new Secret("B", "2"));

        assertThat(store.remove("acme/app", "A")).isTrue();
        assertThat(store.remove("acme/app", "A")).isFalse();
        assertThat(store.remove("acme/none", "A")).isFalse();
        assertThat(store.names("acme/app")).containsExactly("B");
        assertThat(store.remove("acme/app", "B")).isTrue();
        assertThat(store.names("acme/app")).isEmpty();
    }

    @Test
    void concurrentPutsAreAllKept() throws Exception {
        SecretStore store = store();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                int n = i;
                done.add(pool.submit(() -> store.put("acme/app", new Secret("S" + n, "value-" + n))));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(store.names("acme/app")).hasSize(40);
        assertThat(store.get("acme/app", "S17")).map(Secret::value).contains("value-17");
    }
}
