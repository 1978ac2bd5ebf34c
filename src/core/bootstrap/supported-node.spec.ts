import { unsupportedNodeMessage } from './supported-node';

describe(unsupportedNodeMessage.name, () => {
  it('refuses an older or unsupported release in one line that names the release needed and how to get it', () => {
    for (const version of ['18.20.4', '20.20.2', '21.7.3', '22.0.0', '22.12.0', '23.11.1', '24.0.0', '24.10.0']) {
      const message = unsupportedNodeMessage(version);
      expect(message).toContain('needs Node.js 24.11 or later (or 22.13 or later of 22)');
      expect(message).toContain(`this is ${version}`);
      expect(message).toContain('nvm install 24');
      expect(message).not.toContain('\n');
    }
  });

  it('accepts 22.13 and later of 22, 24.11 and later, and later majors', () => {
    expect(['22.13.0', '22.22.1', '24.11.0', '24.22.3', '25.1.0', '26.10.0'].map(unsupportedNodeMessage)).toEqual(
      Array(6).fill(null),
    );
  });

  it('is not refused by the Node.js the tests run on', () => {
    expect(unsupportedNodeMessage(process.versions.node)).toBeNull();
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(22);
  });
});
