import { MINIMUM_NODE_MAJOR, unsupportedNodeMessage } from './supported-node';

describe(unsupportedNodeMessage.name, () => {
  it('refuses Node.js before 22 in one line that names the version needed and how to get it', () => {
    for (const version of ['18.20.4', '20.20.2', '21.7.3']) {
      const message = unsupportedNodeMessage(version);
      expect(message).toContain(`needs Node.js ${MINIMUM_NODE_MAJOR} or later`);
      expect(message).toContain(`this is ${version}`);
      expect(message).toContain('nvm install 24');
      expect(message).not.toContain('\n');
    }
  });

  it('accepts 22 and later', () => {
    expect(['22.0.0', '22.21.1', '24.22.3', '26.10.0'].map(unsupportedNodeMessage)).toEqual([null, null, null, null]);
  });

  it('is not refused by the Node.js the tests run on', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(MINIMUM_NODE_MAJOR);
  });
});
