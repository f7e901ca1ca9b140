package dev.knotless.cli;

import picocli.CommandLine.IVersionProvider;

final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = Main.class.getPackage().getImplementationVersion();
        return new String[] {"knotless-run " + (v == null ? "dev" : v)};
    }
}
