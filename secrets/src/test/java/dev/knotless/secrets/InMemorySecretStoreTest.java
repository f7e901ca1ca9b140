package dev.knotless.secrets;

class InMemorySecretStoreTest extends SecretStoreContract {

    @Override
    SecretStore store() {
        return SecretStore.inMemory();
    }
}
