package dev.knotless.node.runc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.node.protocol.ProcessHardening;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OciConfigTest {

    static final ObjectMapper JSON = new ObjectMapper();

    static BundleSpec spec(NodeOptions node) {
        return new BundleSpec("alloc-1", Path.of("/var/lib/knotless/rootfs/abc"),
                BundleSpec.AllocationDirs.under(Path.of("/var/lib/knotless/alloc/alloc-1")),
                new BundleSpec.Resources(512L * 1024 * 1024, 1500), new RunAs(1000, 1000),
                List.of("HOME=/root"), Optional.empty(), Map.of("dev.knotless.run", "r-1", "dev.knotless.a", "x"), node);
    }

    @Test
    void sameSpecGivesTheSameBytesFromAnyGenerator() {
        byte[] one = new OciConfig().configJson(spec(NodeOptions.DEFAULT));
        byte[] two = new OciConfig().configJson(spec(NodeOptions.DEFAULT));
        assertThat(two).isEqualTo(one);
        String text = new String(one, StandardCharsets.UTF_8);
        assertThat(text).endsWith("}\n").doesNotContain("\r");
    }

    @Test
    void keysAreSortedAtEveryLevel() throws Exception {
        assertSorted(JSON.readTree(new OciConfig().configJson(spec(NodeOptions.DEFAULT))), "$");
    }

    private static void assertSorted(JsonNode node, String where) {
        if (node.isObject()) {
            List<String> keys = new ArrayList<>();
            for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                keys.add(it.next());
            }
            assertThat(keys).as(where).isSorted();
            node.properties().forEach(e -> assertSorted(e.getValue(), where + "." + e.getKey()));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                assertSorted(node.get(i), where + "[" + i + "]");
            }
        }
    }

    @Test
    void theDigestAnnotationIsTheHashOfTheFileWithoutIt() throws Exception {
        OciConfig oci = new OciConfig();
        byte[] bytes = oci.configJson(spec(NodeOptions.DEFAULT));
        String digest = oci.digestOf(bytes);
        assertThat(digest).matches("sha256:[0-9a-f]{64}");
        byte[] other = oci.configJson(new BundleSpec("alloc-1", Path.of("/var/lib/knotless/rootfs/abc"),
                BundleSpec.AllocationDirs.under(Path.of("/var/lib/knotless/alloc/alloc-1")),
                new BundleSpec.Resources(512L * 1024 * 1024, 1501), new RunAs(1000, 1000),
                List.of("HOME=/root"), Optional.empty(), Map.of(), NodeOptions.DEFAULT));
        assertThat(oci.digestOf(other)).isNotEqualTo(digest);
        var withoutDigest = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(bytes);
        ((com.fasterxml.jackson.databind.node.ObjectNode) withoutDigest.get("annotations")).remove(OciConfig.DIGEST_ANNOTATION);
        String pretty = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(withoutDigest) + "\n";
        assertThat(OciConfig.sha256(pretty.getBytes(StandardCharsets.UTF_8))).isEqualTo(digest);
    }

    @Test
    void defaultHardening() throws Exception {
        JsonNode c = JSON.readTree(new OciConfig().configJson(spec(NodeOptions.DEFAULT)));
        JsonNode p = c.get("process");
        assertThat(p.get("noNewPrivileges").asBoolean()).isTrue();
        List<String> seven = List.of("CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL", "CAP_SETGID",
                "CAP_SETUID");
        for (String set : List.of("bounding", "effective", "permitted")) {
            assertThat(p.at("/capabilities/" + set)).extracting(JsonNode::asText).as(set).containsExactlyElementsOf(seven);
        }
        for (String set : List.of("inheritable", "ambient")) {
            assertThat(p.at("/capabilities/" + set).isArray()).isTrue();
            assertThat(p.at("/capabilities/" + set).size()).as(set).isZero();
        }
        assertThat(p.at("/user/uid").asLong()).isEqualTo(1000);
        assertThat(p.get("env").toString()).contains("HOME=/root", "PATH=");
        assertThat(p.has("apparmorProfile")).isFalse();
        assertThat(c.at("/root/readonly").asBoolean()).isFalse();
        JsonNode l = c.get("linux");
        assertThat(l.at("/resources/pids/limit").asInt()).isEqualTo(256);
        assertThat(l.at("/resources/memory/limit").asLong()).isEqualTo(512L * 1024 * 1024);
        assertThat(l.at("/resources/memory/swap").asLong()).isEqualTo(512L * 1024 * 1024);
        assertThat(l.at("/resources/cpu/quota").asLong()).isEqualTo(150_000);
        assertThat(l.at("/resources/cpu/period").asLong()).isEqualTo(100_000);
        assertThat(l.get("cgroupsPath").asText()).isEqualTo("/knotless/alloc-1");
        assertThat(l.get("namespaces").findValuesAsText("type"))
                .containsExactly("pid", "ipc", "uts", "mount", "cgroup", "network");
        assertThat(l.get("namespaces").findValue("path")).isNull();
        assertThat(l.has("uidMappings")).isFalse();
        assertThat(l.at("/seccomp/defaultAction").asText()).isEqualTo("SCMP_ACT_ALLOW");
        assertThat(l.at("/seccomp/syscalls/0/names").toString()).contains("\"unshare\"", "\"mount\"", "\"ptrace\"", "\"bpf\"");
        assertThat(l.get("maskedPaths").toString()).contains("/proc/kcore");
        assertThat(l.get("readonlyPaths").toString()).contains("/proc/sys");
        assertThat(c.get("mounts").findValuesAsText("destination")).containsExactly("/proc", "/dev", "/dev/pts",
                "/dev/shm", "/dev/mqueue", "/sys", "/sys/fs/cgroup", "/work", "/steps", "/outputs", "/etc/hosts");
        assertThat(c.get("mounts").get(8).get("source").asText()).isEqualTo("/var/lib/knotless/alloc/alloc-1/steps");
        assertThat(c.get("mounts").get(8).get("options").toString()).contains("\"ro\"");
    }

    @Test
    void nodeOptionsApplyAndOverrideTheImageUser() throws Exception {
        NodeOptions node = new NodeOptions(true, Optional.of(RunAs.parse("2000:3000")),
                Optional.of(UserNamespace.parse("100000:100000")), Optional.of("knotless-run"));
        JsonNode c = JSON.readTree(new OciConfig().configJson(spec(node)));
        assertThat(c.at("/root/readonly").asBoolean()).isTrue();
        assertThat(c.at("/process/user/uid").asLong()).isEqualTo(2000);
        assertThat(c.at("/process/user/gid").asLong()).isEqualTo(3000);
        assertThat(c.at("/process/apparmorProfile").asText()).isEqualTo("knotless-run");
        assertThat(c.at("/linux/uidMappings/0/hostID").asLong()).isEqualTo(100_000);
        assertThat(c.at("/linux/gidMappings/0/size").asLong()).isEqualTo(65_536);
        assertThat(c.at("/linux/namespaces").findValuesAsText("type")).contains("user");
        assertThat(c.get("mounts").findValuesAsText("destination")).contains("/tmp");
        assertThat(c.get("mounts").get(2).get("options").toString()).doesNotContain("gid=5");
    }

    @Test
    void aGivenNetworkNamespaceIsJoined() throws Exception {
        BundleSpec s = spec(NodeOptions.DEFAULT);
        BundleSpec withNet = new BundleSpec(s.id(), s.rootfs(), s.dirs(), s.resources(), s.user(), s.env(),
                Optional.of(Path.of("/var/run/netns/alloc-1")), s.annotations(), s.node());
        JsonNode c = JSON.readTree(new OciConfig().configJson(withNet));
        assertThat(c.at("/linux/namespaces/5/path").asText()).isEqualTo("/var/run/netns/alloc-1");
    }

    @Test
    void aServiceRunsItsOwnCommandInTheAllocationsNamespaceWithItsHostsAndNoRunLayout() throws Exception {
        BundleSpec s = spec(NodeOptions.DEFAULT);
        BundleSpec service = new BundleSpec("alloc-1-s1", s.rootfs(), s.dirs(), s.resources(), new RunAs(70, 70),
                List.of("PATH=/bin", "POSTGRES_PASSWORD=test"), Optional.of(Path.of("/proc/4242/ns/net")), s.annotations(),
                s.node(), ProcessHardening.DEFAULT,
                Optional.of(new BundleSpec.ServiceProcess(List.of("docker-entrypoint.sh", "postgres"), "/var/lib/postgresql")));
        JsonNode c = JSON.readTree(new OciConfig().configJson(service));
        assertThat(c.at("/process/args").toString()).isEqualTo("[\"docker-entrypoint.sh\",\"postgres\"]");
        assertThat(c.at("/process/cwd").asText()).isEqualTo("/var/lib/postgresql");
        assertThat(c.at("/process/user/uid").asLong()).isEqualTo(70);
        assertThat(c.at("/process/noNewPrivileges").asBoolean()).isTrue();
        assertThat(c.at("/linux/namespaces/5/path").asText()).isEqualTo("/proc/4242/ns/net");
        assertThat(c.get("mounts").findValuesAsText("destination")).contains("/etc/hosts", "/proc")
                .doesNotContain("/work", "/steps", "/outputs");
        assertThat(c.at("/linux/resources/pids/limit").asLong()).isEqualTo(ProcessHardening.DEFAULT.pidsLimit());
        assertThatThrownBy(() -> new BundleSpec.ServiceProcess(List.of(), "/"))
                .hasMessageContaining("a service needs a command");
    }

    @Test
    void execProcessCarriesTheSameHardening() throws Exception {
        JsonNode p = JSON.readTree(new OciConfig().execProcessJson(spec(NodeOptions.DEFAULT), List.of("sh", "-c", "true"),
                List.of(), "/work"));
        assertThat(p.get("noNewPrivileges").asBoolean()).isTrue();
        assertThat(p.at("/capabilities/effective").size()).isEqualTo(7);
        assertThat(p.at("/capabilities/ambient").size()).isZero();
        assertThat(p.get("cwd").asText()).isEqualTo("/work");
        assertThat(p.at("/user/uid").asLong()).isEqualTo(1000);
    }

    @Test
    void badInputIsRefusedWithOneLine() {
        assertThatThrownBy(() -> RunAs.parse("root")).hasMessage("--run-as wants UID:GID (numbers), got 'root'");
        assertThatThrownBy(() -> UserNamespace.parse("0:0")).hasMessageContaining("unprivileged host ids");
        assertThatThrownBy(() -> new NodeOptions(false, Optional.empty(), Optional.empty(), Optional.of("x y")))
                .hasMessage("--apparmor wants a profile name, got 'x y'");
        assertThatThrownBy(() -> new BundleSpec("../x", Path.of("/r"), BundleSpec.AllocationDirs.under(Path.of("/a")),
                new BundleSpec.Resources(1L << 30, 1000), RunAs.ROOT, List.of(), Optional.empty(), Map.of(), NodeOptions.DEFAULT))
                .hasMessageContaining("container id");
        assertThatThrownBy(() -> new BundleSpec("x", Path.of("r"), BundleSpec.AllocationDirs.under(Path.of("/a")),
                new BundleSpec.Resources(1L << 30, 1000), RunAs.ROOT, List.of(), Optional.empty(), Map.of(), NodeOptions.DEFAULT))
                .hasMessage("rootfs must be an absolute path, got r");
        assertThatThrownBy(() -> new BundleSpec("x", Path.of("/r"), BundleSpec.AllocationDirs.under(Path.of("/a")),
                new BundleSpec.Resources(1L << 30, 1000), RunAs.ROOT, List.of(), Optional.empty(),
                Map.of(OciConfig.DIGEST_ANNOTATION, "x"), NodeOptions.DEFAULT))
                .hasMessageContaining("set by the generator");
    }

    @Test
    void theRunnersHardeningIsWhatTheConfigSays() throws Exception {
        BundleSpec s = spec(NodeOptions.DEFAULT);
        BundleSpec asked = new BundleSpec(s.id(), s.rootfs(), s.dirs(), s.resources(), s.user(), s.env(), s.netns(),
                s.annotations(), s.node(), new ProcessHardening(List.of("NET_BIND_SERVICE"), false, 64,
                        List.of("/proc/sys", "/etc/secret"), ProcessHardening.IMAGE_USER));
        JsonNode c = JSON.readTree(new OciConfig().configJson(asked));
        assertThat(c.at("/process/capabilities/bounding")).extracting(JsonNode::asText).containsExactly("CAP_NET_BIND_SERVICE");
        assertThat(c.at("/process/noNewPrivileges").asBoolean()).isFalse();
        assertThat(c.at("/linux/resources/pids/limit").asLong()).isEqualTo(64);
        assertThat(c.at("/linux/readonlyPaths")).extracting(JsonNode::asText).containsExactly("/proc/sys", "/etc/secret");
        assertThatThrownBy(() -> new ProcessHardening(List.of("CAP_CHOWN"), true, 1, List.of(), "image"))
                .hasMessageContaining("unknown capability 'CAP_CHOWN'");
        assertThatThrownBy(() -> new ProcessHardening(List.of(), true, 1, List.of("/proc/../etc"), "image"))
                .hasMessageContaining("plain and absolute");
    }
}
