package dev.knotless.runner.run.output;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.TestSummary;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** JUnit XML as Surefire, Gradle and pytest write it, and as an attacker would. */
class JUnitXmlTest {

    static final String SUREFIRE = """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuite name="com.acme.CartTest" tests="99" failures="0" errors="0" skipped="0" time="1.5">
              <properties><property name="java.version" value="21"/></properties>
              <testcase name="addsItems" classname="com.acme.CartTest" time="0.012"/>
              <testcase name="totalsPrices" classname="com.acme.CartTest" time="0.250">
                <failure message="expected: &lt;3&gt; but was: &lt;4&gt;" type="org.opentest4j.AssertionFailedError"><![CDATA[
            org.opentest4j.AssertionFailedError: expected: <3> but was: <4>
            	at com.acme.CartTest.totalsPrices(CartTest.java:31)
            ]]></failure>
                <system-out><![CDATA[computing]]></system-out>
              </testcase>
              <testcase name="later" classname="com.acme.CartTest" time="0">
                <skipped message="not yet"/>
              </testcase>
              <testcase name="breaks" classname="com.acme.CartTest" time="0.1">
                <error type="java.lang.IllegalStateException">java.lang.IllegalStateException: no cart
                  at com.acme.Cart.open(Cart.java:9)
                  at com.acme.Cart.open(Cart.java:10)
                  at com.acme.Cart.open(Cart.java:11)
                </error>
              </testcase>
            </testsuite>
            """;

    private static TestSummary read(String... files) {
        JUnitXml xml = new JUnitXml();
        for (int i = 0; i < files.length; i++) {
            xml.add("report-" + (i + 1) + ".xml", new ByteArrayInputStream(files[i].getBytes(StandardCharsets.UTF_8)));
        }
        return xml.summary();
    }

    @Test
    void testCasesAreCountedAndTheFailedOnesListedWithTheirFirstLines() {
        TestSummary s = read(SUREFIRE);

        assertThat(s.files()).isEqualTo(1);
        assertThat(s.tests()).as("counted, not the suite's own attribute").isEqualTo(4);
        assertThat(s.failures()).isEqualTo(1);
        assertThat(s.errors()).isEqualTo(1);
        assertThat(s.skipped()).isEqualTo(1);
        assertThat(s.passed()).isEqualTo(1);
        assertThat(s.timeMs()).isEqualTo(362);
        assertThat(s.failed()).containsExactly(
                new TestSummary.FailedTest("com.acme.CartTest", "totalsPrices", "expected: <3> but was: <4>", false),
                new TestSummary.FailedTest("com.acme.CartTest", "breaks", "java.lang.IllegalStateException: no cart\n"
                        + "at com.acme.Cart.open(Cart.java:9)\nat com.acme.Cart.open(Cart.java:10)", true));
        assertThat(s.line()).isEqualTo("4 tests: 1 passed, 1 failed, 1 errors, 1 skipped");
        assertThat(s.notes()).isEmpty();
    }

    @Test
    void suitesOfSuitesAndSeveralFilesAddUp() {
        TestSummary s = read("""
                <testsuites><testsuite name="a"><testcase name="one" classname="test_a" time="1.0"/></testsuite>
                <testsuite name="b"><testsuite name="nested"><testcase name="two" time="0.5"/></testsuite></testsuite></testsuites>
                """, SUREFIRE);

        assertThat(s.files()).isEqualTo(2);
        assertThat(s.tests()).isEqualTo(6);
        assertThat(s.timeMs()).isEqualTo(1862);
    }

    @Test
    void aDtdAnEntityOrAnotherKindOfFileIsANoteAndNothingElse() {
        TestSummary s = read("""
                <?xml version="1.0"?>
                <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
                <testsuite><testcase name="&lol2;"/></testsuite>
                """, """
                <?xml version="1.0"?>
                <!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
                <testsuite><testcase name="x"><failure message="&xxe;"/></testcase></testsuite>
                """, "<project><modelVersion>4.0.0</modelVersion></project>", "not xml at all <", SUREFIRE);

        assertThat(s.files()).isEqualTo(1);
        assertThat(s.tests()).isEqualTo(4);
        assertThat(s.notes()).hasSize(4).allSatisfy(n -> assertThat(n).doesNotContain("root:"));
        assertThat(s.notes().get(0)).startsWith("report-1.xml was not read:");
        assertThat(s.notes().get(2)).isEqualTo("report-3.xml is not a JUnit report (no testsuite or testsuites)");
        assertThat(s.failed()).noneMatch(f -> f.message().contains("root:"));
    }

    @Test
    void longNamesAndMessagesAreCutShortAndOnlyTheFirstFiftyFailuresListed() {
        StringBuilder xml = new StringBuilder("<testsuite>");
        for (int i = 0; i < 80; i++) {
            xml.append("<testcase classname=\"C\" name=\"t").append(i).append("\"><failure message=\"")
                    .append("m".repeat(2_000)).append("\"/></testcase>");
        }
        xml.append("<testcase name=\"").append("n".repeat(5_000)).append("\"/></testsuite>");
        TestSummary s = read(xml.toString());

        assertThat(s.failures()).isEqualTo(80);
        assertThat(s.failed()).hasSize(TestSummary.LISTED);
        assertThat(s.failed().getFirst().message()).hasSize(501);
    }
}
