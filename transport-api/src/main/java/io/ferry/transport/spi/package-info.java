/**
 * Building blocks for transport implementations. Applications do not need this package.
 */
package io.ferry.transport.spi;
