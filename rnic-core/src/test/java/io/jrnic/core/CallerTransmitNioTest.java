package io.jrnic.core;

import io.jrnic.api.IoTransport;

/**
 * {@link CallerTransmitTest} on NIO sockets: posts transmit on the posting thread while the loop's
 * selector waits, and a write the socket does not take whole still finishes when it drains.
 */
class CallerTransmitNioTest extends CallerTransmitTest {
    @Override
    IoTransport transport() {
        return IoTransport.NIO;
    }
}
