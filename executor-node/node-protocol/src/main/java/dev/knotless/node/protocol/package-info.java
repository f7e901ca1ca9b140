@NullMarked
package dev.knotless.node.protocol;

import org.jspecify.annotations.NullMarked;
