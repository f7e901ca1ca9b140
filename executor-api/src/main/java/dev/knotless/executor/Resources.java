package dev.knotless.executor;

/**
 * CPU in thousandths of a core and memory in bytes; zero means "the executor's default".
 * Parses the Kubernetes quantity forms users already know: {@code 0.5}, {@code 500m},
 * {@code 512Mi}, {@code 1G}, {@code 1073741824}.
 */
public record Resources(long milliCpu, long memoryBytes) {

    public static final Resources DEFAULT = new Resources(0, 0);

    public Resources {
        if (milliCpu < 0 || memoryBytes < 0) {
            throw new IllegalArgumentException("resources cannot be negative");
        }
    }

    /** Parses a CPU quantity such as {@code 2}, {@code 0.5} or {@code 500m}. */
    public static long parseMilliCpu(String text) {
        String s = text.trim();
        try {
            if (s.endsWith("m")) {
                return Long.parseLong(s.substring(0, s.length() - 1));
            }
            return Math.round(Double.parseDouble(s) * 1000);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a CPU quantity: '" + text + "' (use 2, 0.5 or 500m)");
        }
    }

    /**
     * Parses a memory quantity: Kubernetes forms ({@code 512Mi}, {@code 2Gi}, {@code 1G}), plain
     * bytes, or Docker's lower-case binary forms ({@code 512m}, {@code 1g}, meaning MiB and GiB).
     */
    public static long parseMemory(String text) {
        String s = text.trim();
        String[][] units = {
            {"Ki", "1024"}, {"Mi", "1048576"}, {"Gi", "1073741824"}, {"Ti", "1099511627776"},
            {"K", "1000"}, {"M", "1000000"}, {"G", "1000000000"}, {"T", "1000000000000"},
            {"k", "1024"}, {"m", "1048576"}, {"g", "1073741824"},
        };
        for (String[] unit : units) {
            if (s.endsWith(unit[0]) && s.length() > unit[0].length()) {
                String number = s.substring(0, s.length() - unit[0].length());
                try {
                    return Math.round(Double.parseDouble(number) * Long.parseLong(unit[1]));
                } catch (NumberFormatException e) {
                    break;
                }
            }
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "not a memory quantity: '" + text + "' (use 512Mi, 2Gi, 1G or bytes)");
        }
    }

    /** A CPU quantity as a user would write it back: {@code 2}, {@code 0.5}, {@code 250m}. */
    public static String cpuText(long milliCpu) {
        if (milliCpu % 1000 == 0) {
            return String.valueOf(milliCpu / 1000);
        }
        return milliCpu % 100 == 0 ? (milliCpu / 1000) + "." + (milliCpu % 1000) / 100 : milliCpu + "m";
    }

    /** A memory quantity in the largest binary unit that holds it exactly: {@code 8Gi}, {@code 1536Mi}, bytes. */
    public static String memoryText(long bytes) {
        String[] units = {"Ti", "Gi", "Mi", "Ki"};
        for (int i = 0; i < units.length; i++) {
            long unit = 1L << (10 * (units.length - i));
            if (bytes >= unit && bytes % unit == 0) {
                return bytes / unit + units[i];
            }
        }
        return String.valueOf(bytes);
    }
}
