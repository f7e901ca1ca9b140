@NullMarked
package dev.knotless.node.host;

import org.jspecify.annotations.NullMarked;
