import { readFileSync } from 'node:fs';
import { CONFIGURATION_DOC_PATH, renderConfigurationDoc } from '../../../scripts/config-doc';
import { configSettings } from './config.schema';

describe('docs/configuration.md', () => {
  it('is what the generator writes from the schema (run `npm run docs:config` after changing a setting)', () => {
    expect(readFileSync(CONFIGURATION_DOC_PATH, 'utf8')).toBe(renderConfigurationDoc());
  });

  it('lists every setting of the schema', () => {
    const doc = renderConfigurationDoc();
    for (const name of Object.keys(configSettings.shape)) expect(doc).toContain(`| \`${name}\` |`);
  });
});
