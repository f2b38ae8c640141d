package io.jrnic.api;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The application-facing helpers of rnic-api (issue 14) that need no implementation. */
class FrontDoorApiTest {

    @Test
    void remoteBufferEncodesAsRpingsRdmaInfoBigEndian() {
        RemoteBuffer b = new RemoteBuffer(0x11223344, 0x0102030405060708L, 0xFFFF_FFFEL);
        assertThat(HexFormat.of().formatHex(b.toBytes())).isEqualTo("0102030405060708" + "11223344" + "fffffffe");
        assertThat(RemoteBuffer.fromBytes(b.toBytes())).isEqualTo(b);
        byte[] privateData = new byte[20]; // more private data may follow the descriptor
        b.writeTo(MemorySegment.ofArray(privateData), 0);
        assertThat(RemoteBuffer.fromBytes(privateData)).isEqualTo(b);
        assertThat(RemoteBuffer.readFrom(MemorySegment.ofArray(privateData), 0)).isEqualTo(b);
        assertThat(RemoteBuffer.BYTES).isEqualTo(16);
        assertThatThrownBy(() -> RemoteBuffer.fromBytes(new byte[15])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RemoteBuffer(1, 0, 1L << 32)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RemoteBuffer(1, 0, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void remoteBufferSlicesStayInside() {
        RemoteBuffer b = new RemoteBuffer(7, 0x1000, 4096);
        assertThat(b.slice(100, 200)).isEqualTo(new RemoteBuffer(7, 0x1000 + 100, 200));
        assertThat(b.slice(4096, 0)).isEqualTo(new RemoteBuffer(7, 0x2000, 0));
        assertThatThrownBy(() -> b.slice(4000, 97)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> b.slice(-1, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        SendWorkRequest wr = new SendWorkRequest().remote(b.slice(8, 8));
        assertThat(wr.remoteStag()).isEqualTo(7);
        assertThat(wr.remoteTo()).isEqualTo(0x1008);
    }

    @Test
    void namedAccessRightsAreTheBits() {
        assertThat(AccessRights.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE))
                .isEqualTo(AccessRights.LOCAL_WRITE | AccessRights.REMOTE_WRITE);
        assertThat(AccessRights.of()).isZero();
        int all = 0;
        for (Access a : Access.values()) {
            all |= a.bit();
        }
        assertThat(all).isEqualTo(AccessRights.ALL);
    }

    @Test
    void registrationBuilderPassesNamedArgumentsWithTheDefaults() {
        List<Object[]> calls = new ArrayList<>();
        ProtectionDomain pd = (ProtectionDomain) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ProtectionDomain.class}, (proxy, method, args) -> {
                    if (method.isDefault()) {
                        return java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args);
                    }
                    calls.add(args);
                    return null;
                });
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(8192, 4096);
            pd.registration(m).access(Access.LOCAL_READ, Access.LOCAL_WRITE).register();
            pd.registration(m).access(Access.LOCAL_WRITE, Access.REMOTE_WRITE).key(0x5A).zeroBased()
                    .verifyHash(VerifyHash.of("SHA-512")).register();
            pd.registration(m).accessRights(AccessRights.LOCAL | AccessRights.BIND_WINDOW).remoteAccess(true)
                    .virtualAddress(m.address() + 8192).register();
            assertThat(calls.get(0)).containsExactly(m, AccessRights.LOCAL, 0, AddressType.VA_BASED, m.address(), false,
                    VerifyHash.SHA_256);
            assertThat(calls.get(1)).containsExactly(m, AccessRights.LOCAL_WRITE | AccessRights.REMOTE_WRITE, 0x5A,
                    AddressType.ZERO_BASED, 0L, true, VerifyHash.of("SHA-512"));
            assertThat(calls.get(2)).containsExactly(m, AccessRights.LOCAL | AccessRights.BIND_WINDOW, 0,
                    AddressType.VA_BASED, m.address() + 8192, true, VerifyHash.SHA_256);
        }
    }

    @Test
    void withoutAnImplementationRnicOpenSaysWhatIsMissing() {
        // rnic-api's own tests have no rnic-core on the class path
        assertThatThrownBy(() -> Rnic.open(new RnicConfig())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("rnic-core");
        assertThat(new RnicConfig().name()).isNull(); // unnamed: the RNIC picks a unique name
    }

    @Test
    void libraryOnlyMembersAreNotPublic() throws Exception {
        assertThat(Modifier.isPublic(WorkCompletion.class.getDeclaredMethod("set", long.class, Opcode.class,
                WorkCompletionStatus.class, int.class, QueuePair.class, boolean.class, int.class).getModifiers()))
                .isFalse();
        assertThat(Modifier.isPublic(WorkCompletion.class.getDeclaredMethod("immediateData", long.class)
                .getModifiers())).isFalse();
        assertThat(Connection.class.isInterface()).isTrue(); // no public constructor to call
        assertThat(io.jrnic.api.internal.ApiAccess.get()).isNotNull();
        WorkCompletion wc = new WorkCompletion();
        io.jrnic.api.internal.ApiAccess.get().set(wc, 5, Opcode.RECEIVE, WorkCompletionStatus.SUCCESS, 12, null, true, 9);
        io.jrnic.api.internal.ApiAccess.get().immediateData(wc, 77);
        WorkCompletion copy = new WorkCompletion().copyFrom(wc);
        assertThat(copy.toString()).isEqualTo(wc.toString());
        assertThat(copy.immediateData()).isEqualTo(77);
        assertThat(copy.invalidatedStag()).isEqualTo(9);
    }
}
