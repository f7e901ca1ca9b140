@NullMarked
package dev.knotless.node.image;

import org.jspecify.annotations.NullMarked;
