package dev.knotless.node.runc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImageUserTest {

    @TempDir
    Path rootfs;

    @Test
    void resolvesNamesAndNumbersFromTheImagesFiles() throws Exception {
        Files.createDirectories(rootfs.resolve("etc"));
        Files.writeString(rootfs.resolve("etc/passwd"), "root:x:0:0:root:/root:/bin/sh\nbuild:x:1001:1002::/home/build:/bin/sh\n");
        Files.writeString(rootfs.resolve("etc/group"), "root:x:0:\nbuild:x:1002:\nci:x:1500:build\n");
        assertThat(ImageUser.resolve("", rootfs)).isEqualTo(RunAs.ROOT);
        assertThat(ImageUser.resolve("build", rootfs)).isEqualTo(new RunAs(1001, 1002));
        assertThat(ImageUser.resolve("build:ci", rootfs)).isEqualTo(new RunAs(1001, 1500));
        assertThat(ImageUser.resolve("1001", rootfs)).isEqualTo(new RunAs(1001, 1002));
        assertThat(ImageUser.resolve("4000", rootfs)).isEqualTo(new RunAs(4000, 0));
        assertThat(ImageUser.resolve("4000:7", rootfs)).isEqualTo(new RunAs(4000, 7));
        assertThatThrownBy(() -> ImageUser.resolve("nobody", rootfs))
                .hasMessage("image user 'nobody' is not in the image's /etc/passwd");
        assertThatThrownBy(() -> ImageUser.resolve("a:b:c", rootfs)).hasMessage("image user 'a:b:c' is not USER[:GROUP]");
    }

    @Test
    void aSymlinkedPasswdIsNotFollowedToTheHost() throws Exception {
        Files.createDirectories(rootfs.resolve("etc"));
        Files.createSymbolicLink(rootfs.resolve("etc/passwd"), Path.of("/etc/passwd"));
        assertThatThrownBy(() -> ImageUser.resolve("root", rootfs))
                .hasMessage("image user 'root' is not in the image's /etc/passwd");
    }
}
