/**
 * The jrnic test kit for applications' own integration tests: {@link io.jrnic.test.RnicTest} on a
 * JUnit Jupiter test class or method, and a {@link io.jrnic.test.RnicPair} parameter holding two
 * open RNICs whose queue pairs are connected over loopback TCP, closed after the test; and
 * {@link io.jrnic.test.FaultProxy}, a loopback TCP proxy that cuts, stalls, delays, slices or
 * half-closes a connection at a chosen byte, for tests of what an application sees when the
 * network fails.
 *
 * <pre>{@code
 * @RnicTest
 * class MyTest {
 *     @Test
 *     void writeLandsAtThePeer(RnicPair pair) throws Exception {
 *         MemoryRegion target = pair.passive().allocate(4096);
 *         MemoryRegion source = pair.active().allocate(4096);
 *         pair.active().qp().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE)
 *                 .sge(source.stag(), source.memory().address(), 4096)
 *                 .remote(RemoteBuffer.of(target)));
 *         pair.active().awaitSuccess(1);
 *     }
 * }
 * }</pre>
 */
package io.jrnic.test;
