package dev.knotless.runner.run.output;

import dev.knotless.checks.TestSummary;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Reads JUnit XML report files (Surefire's, Gradle's, pytest's and the rest: {@code testsuite} or
 * {@code testsuites}, with {@code testcase} elements) into a {@link TestSummary}. A report is the
 * run's output, so hostile: no DTD is read and no entity expanded (a file with a DTD is refused),
 * test cases are counted rather than taken from a suite's attributes, and every text kept is cut
 * short.
 */
final class JUnitXml {

    /** Test cases read from all files at most; the rest of a larger set is not counted. */
    static final int MOST_CASES = 200_000;
    private static final int MESSAGE_LINES = 3;
    private static final int MESSAGE_CHARS = 500;
    private static final int NAME_CHARS = 300;
    private static final int NOTES = 10;

    private final XMLInputFactory factory = XMLInputFactory.newFactory();
    private int files;
    private int tests;
    private int failures;
    private int errors;
    private int skipped;
    private long timeMs;
    private final List<TestSummary.FailedTest> failed = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    JUnitXml() {
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        factory.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        factory.setProperty(XMLInputFactory.IS_COALESCING, true);
    }

    /** Adds the report {@code name} (for notes) read from {@code in}; a file that is not a report is a note. */
    void add(String name, InputStream in) {
        Counts counts = new Counts();
        try {
            XMLStreamReader xml = factory.createXMLStreamReader(in);
            try {
                read(xml, counts);
            } finally {
                xml.close();
            }
        } catch (XMLStreamException | IOException | RuntimeException e) {
            note(name + " was not read: " + oneLine(String.valueOf(e.getMessage())));
            return;
        }
        if (!counts.junit) {
            note(name + " is not a JUnit report (no testsuite or testsuites)");
            return;
        }
        files++;
        tests += counts.tests;
        failures += counts.failures;
        errors += counts.errors;
        skipped += counts.skipped;
        timeMs += counts.timeMs;
        for (TestSummary.FailedTest f : counts.failed) {
            if (failed.size() < TestSummary.LISTED) {
                failed.add(f);
            }
        }
    }

    /** A file that could not be had at all (too large, say). */
    void note(String line) {
        if (notes.size() < NOTES) {
            notes.add(line);
        }
    }

    TestSummary summary() {
        return new TestSummary(files, tests, failures, errors, skipped, timeMs, failed, notes);
    }

    private static final class Counts {
        boolean junit;
        int tests;
        int failures;
        int errors;
        int skipped;
        long timeMs;
        final List<TestSummary.FailedTest> failed = new ArrayList<>();
    }

    private void read(XMLStreamReader xml, Counts counts) throws XMLStreamException, IOException {
        boolean root = true;
        String className = null;
        String caseName = null;
        String outcome = null; // failure, error, skipped: the first one in the test case
        String message = null;
        StringBuilder text = null;
        while (xml.hasNext()) {
            int event = xml.next();
            switch (event) {
                case XMLStreamConstants.DTD -> throw new IOException("it has a DTD, which a report has no need of");
                case XMLStreamConstants.ENTITY_REFERENCE -> throw new IOException("it uses an entity ('&" + xml.getLocalName() + ";')");
                case XMLStreamConstants.START_ELEMENT -> {
                    String element = xml.getLocalName();
                    if (root) {
                        root = false;
                        counts.junit = element.equals("testsuite") || element.equals("testsuites");
                        if (!counts.junit) {
                            return;
                        }
                    }
                    if (element.equals("testcase")) {
                        if (tests + counts.tests >= MOST_CASES) {
                            note("more than " + MOST_CASES + " test cases: the rest are not counted");
                            return;
                        }
                        className = cut(attribute(xml, "classname"), NAME_CHARS);
                        caseName = cut(attribute(xml, "name"), NAME_CHARS);
                        outcome = null;
                        message = null;
                        text = null;
                        counts.tests++;
                        counts.timeMs += millis(attribute(xml, "time"));
                    } else if (caseName != null && outcome == null
                            && (element.equals("failure") || element.equals("error") || element.equals("skipped"))) {
                        outcome = element;
                        message = attribute(xml, "message");
                        text = new StringBuilder();
                    }
                }
                case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA -> {
                    if (text != null && text.length() < MESSAGE_CHARS * 4) {
                        text.append(xml.getText(), 0, Math.min(xml.getTextLength(), MESSAGE_CHARS * 4 - text.length()));
                    }
                }
                case XMLStreamConstants.END_ELEMENT -> {
                    String element = xml.getLocalName();
                    if (element.equals("testcase") && caseName != null) {
                        if ("failure".equals(outcome) || "error".equals(outcome)) {
                            boolean error = outcome.equals("error");
                            if (error) {
                                counts.errors++;
                            } else {
                                counts.failures++;
                            }
                            String why = message != null && !message.isBlank() ? message : text == null ? "" : text.toString();
                            counts.failed.add(new TestSummary.FailedTest(className, caseName, firstLines(why), error));
                        } else if ("skipped".equals(outcome)) {
                            counts.skipped++;
                        }
                        caseName = null;
                        outcome = null;
                        text = null;
                    }
                }
                default -> { }
            }
        }
    }

    private static String attribute(XMLStreamReader xml, String name) {
        String value = xml.getAttributeValue(null, name);
        return value == null ? "" : value;
    }

    private static long millis(String seconds) {
        try {
            double s = Double.parseDouble(seconds.replace(",", ""));
            return s > 0 && s < 1e9 ? Math.round(s * 1000) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String firstLines(String text) {
        List<String> lines = text.strip().lines().map(String::strip).filter(l -> !l.isEmpty()).limit(MESSAGE_LINES).toList();
        return cut(String.join("\n", lines), MESSAGE_CHARS);
    }

    private static String cut(String s, int most) {
        return s.length() <= most ? s : s.substring(0, most) + "…";
    }

    private static String oneLine(String s) {
        return cut(s.replaceAll("\\s+", " ").strip(), 200);
    }
}
