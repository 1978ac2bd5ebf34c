/** What a failed connection says of the host it was to, and whether trying again may help. */
interface KnownFailure {
  retryable: boolean;
  /** Said of `subject` ("the source host example.com", "the segmentation service"), without a full stop. */
  describe: (subject: string) => string;
}

const UNTRUSTED_CERTIFICATE: KnownFailure = {
  retryable: true,
  describe: (subject) => `the TLS certificate of ${subject} is not trusted`,
};

/**
 * Node's network and TLS error codes, in words a client can read. A message is built from the
 * code and a subject the caller chose, never from Node's text, which names the address and port
 * connected to (`connect ECONNREFUSED 10.1.2.3:8080`); the log keeps that text.
 */
const KNOWN_FAILURES: Readonly<Record<string, KnownFailure>> = {
  ECONNREFUSED: { retryable: true, describe: (subject) => `${subject} refused the connection` },
  ECONNRESET: {
    retryable: true,
    describe: (subject) => `${subject} closed the connection before answering in full`,
  },
  ETIMEDOUT: { retryable: true, describe: (subject) => `the connection to ${subject} timed out` },
  EPIPE: { retryable: true, describe: (subject) => `the connection to ${subject} broke` },
  EAI_AGAIN: {
    retryable: true,
    describe: (subject) => `${subject} could not be found right now (its host name did not resolve)`,
  },
  ENOTFOUND: {
    retryable: false,
    describe: (subject) => `${subject} could not be found (its host name does not exist)`,
  },
  CERT_HAS_EXPIRED: { retryable: true, describe: (subject) => `the TLS certificate of ${subject} has expired` },
  ERR_TLS_CERT_ALTNAME_INVALID: {
    retryable: true,
    describe: (subject) => `the TLS certificate of ${subject} is not for its host name`,
  },
  DEPTH_ZERO_SELF_SIGNED_CERT: UNTRUSTED_CERTIFICATE,
  SELF_SIGNED_CERT_IN_CHAIN: UNTRUSTED_CERTIFICATE,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: UNTRUSTED_CERTIFICATE,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: UNTRUSTED_CERTIFICATE,
};

/** How a request to `subject` failed, for a client: a sentence fragment in lower case, and whether to try again. */
export function describeNetworkFailure(error: unknown, subject: string): { retryable: boolean; reason: string } {
  const code = (error as NodeJS.ErrnoException | null | undefined)?.code;
  const known = code ? KNOWN_FAILURES[code] : undefined;
  if (known) return { retryable: known.retryable, reason: known.describe(subject) };
  return { retryable: true, reason: `${subject} could not be reached` };
}

/** `text` as a sentence: its first letter in upper case and a full stop. */
export function asSentence(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}
