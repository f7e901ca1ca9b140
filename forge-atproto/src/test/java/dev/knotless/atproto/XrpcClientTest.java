package dev.knotless.atproto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.xrpc.Identity;
import dev.knotless.atproto.xrpc.XrpcClient;
import dev.knotless.atproto.xrpc.XrpcException;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The XRPC client against {@link FakePds}, which stands in for a PDS and its faults. */
class XrpcClientTest {

    private final FakePds pds = new FakePds();
    private final ObjectMapper json = new ObjectMapper();
    private final OkHttpClient http = new OkHttpClient();

    XrpcClientTest() throws IOException {}

    @AfterEach
    void stop() {
        pds.close();
    }

    private XrpcClient client(String password) {
        return new XrpcClient(http, pds.url(), new Identity("runner.test", password), json);
    }

    private ObjectNode record() {
        return json.createObjectNode().put("$type", "dev.knotless.check").put("status", "running");
    }

    @Test
    void logsInOnTheFirstCallAndPutsWithTheAccessToken() throws IOException {
        XrpcClient client = client(FakePds.PASSWORD);
        var written = client.putRecord(FakePds.DID, "dev.knotless.check", "run-1", record());
        assertThat(written.uri()).isEqualTo("at://" + FakePds.DID + "/dev.knotless.check/run-1");
        assertThat(pds.calls).containsExactly("com.atproto.server.createSession", "com.atproto.repo.putRecord");
        assertThat(pds.records).containsKey("dev.knotless.check/run-1");
    }

    @Test
    void anExpiredAccessTokenIsRefreshedAndTheCallRepeatedOnce() throws IOException {
        XrpcClient client = client(FakePds.PASSWORD);
        client.putRecord(FakePds.DID, "dev.knotless.check", "a", record());
        pds.expireAccessToken();
        client.putRecord(FakePds.DID, "dev.knotless.check", "b", record());
        assertThat(pds.calls).containsExactly("com.atproto.server.createSession", "com.atproto.repo.putRecord",
                "com.atproto.repo.putRecord", "com.atproto.server.refreshSession", "com.atproto.repo.putRecord");
        assertThat(pds.records).containsKeys("dev.knotless.check/a", "dev.knotless.check/b");
    }

    @Test
    void whenTheRefreshTokenIsRefusedTooItLogsInAgain() throws IOException {
        XrpcClient client = client(FakePds.PASSWORD);
        client.session();
        pds.expireAccessToken();
        pds.refreshAllowed = false;
        client.putRecord(FakePds.DID, "dev.knotless.check", "c", record());
        assertThat(pds.calls).containsExactly("com.atproto.server.createSession", "com.atproto.repo.putRecord",
                "com.atproto.server.refreshSession", "com.atproto.server.createSession", "com.atproto.repo.putRecord");
    }

    @Test
    void aWrongPasswordIsOneLineWithoutThePasswordEvenWhenTheServerEchoesIt() {
        pds.echoPassword = true;
        String wrong = "wrong-secret-9876";
        assertThatThrownBy(() -> client(wrong).session())
                .isInstanceOf(XrpcException.class)
                .hasMessageContaining("com.atproto.server.createSession at " + pds.url())
                .hasMessageContaining("HTTP 401 AuthenticationRequired")
                .hasMessageNotContaining(wrong)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void anErrorAnswerNamesTheMethodStatusAndErrorAndIsNotRetryableWhenA4xx() throws IOException {
        assertThat(client(FakePds.PASSWORD).getRecord(FakePds.DID, "dev.knotless.check", "none")).isEmpty();
        XrpcException e = (XrpcException) org.assertj.core.api.Assertions.catchThrowable(
                () -> client(FakePds.PASSWORD).procedure("com.example.nothing", json.createObjectNode(), false));
        assertThat(e.getMessage()).isEqualTo("com.example.nothing at " + pds.url()
                + ": HTTP 501 MethodNotImplemented: not in the fake: com.example.nothing");
        assertThat(e.retryable()).isTrue();
        pds.down = true;
        XrpcException down = (XrpcException) org.assertj.core.api.Assertions.catchThrowable(
                () -> client(FakePds.PASSWORD).session());
        assertThat(down.status()).isEqualTo(503);
        assertThat(down.retryable()).isTrue();
    }

    @Test
    void anAnswerOverTheBoundIsRefusedNotRead() {
        pds.hugeAnswerBytes = (int) XrpcClient.MAX_JSON_BYTES + 10;
        assertThatThrownBy(() -> client(FakePds.PASSWORD).getRecord(FakePds.DID, "dev.knotless.check", "x"))
                .isInstanceOf(XrpcException.class)
                .hasMessageContaining("over the " + XrpcClient.MAX_JSON_BYTES);
    }

    @Test
    void aServerThatIsNotThereIsOneLineNamingTheMethodAndServer() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        XrpcClient client = new XrpcClient(http, HttpUrl.get("http://127.0.0.1:" + port), new Identity("r.test", "pw"), json);
        assertThatThrownBy(client::session)
                .isInstanceOf(IOException.class)
                .isNotInstanceOf(XrpcException.class)
                .hasMessageStartingWith("com.atproto.server.createSession at http://127.0.0.1:" + port + "/: ")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").doesNotContain("pw"));
    }

    @Test
    void uploadsABlobAndRefusesAFileOverTheCapBeforeSending(@TempDir Path dir) throws IOException {
        Path log = Files.writeString(dir.resolve("log"), "hello log\n");
        var blob = client(FakePds.PASSWORD).uploadBlob(log, "text/plain", 100);
        assertThat(pds.blobs.get(blob.cid())).isEqualTo("hello log\n".getBytes());
        assertThat(blob.size()).isEqualTo(10);
        int before = pds.calls.size();
        assertThatThrownBy(() -> client(FakePds.PASSWORD).uploadBlob(log, "text/plain", 5))
                .hasMessageContaining("holds 10 bytes, over the 5");
        assertThat(pds.calls).hasSize(before);
    }

    @Test
    void anIdentityFileIsReadAndItsPasswordNeverShown(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("identity"), "# the runner\nidentifier = runner.test\npassword=abcd-efgh-ijkl-mnop\n");
        Identity id = Identity.read(file);
        assertThat(id.identifier()).isEqualTo("runner.test");
        assertThat(id.password()).isEqualTo("abcd-efgh-ijkl-mnop");
        assertThat(id.toString()).doesNotContain("abcd");

        Path bare = Files.writeString(dir.resolve("bare"), "identifier=runner.test\nabcd-efgh-ijkl-mnop\n");
        assertThatThrownBy(() -> Identity.read(bare)).hasMessage(bare + ":2: expected key=value");
        Path missing = Files.writeString(dir.resolve("missing"), "identifier=runner.test\n");
        assertThatThrownBy(() -> Identity.read(missing)).hasMessage(missing + ": no password");
    }
}
