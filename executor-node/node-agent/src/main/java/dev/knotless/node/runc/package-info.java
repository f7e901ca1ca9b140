@NullMarked
package dev.knotless.node.runc;

import org.jspecify.annotations.NullMarked;
