import { OutboundAddressPolicy } from './address-policy';

describe(OutboundAddressPolicy.name, () => {
  const strict = new OutboundAddressPolicy([]);

  it.each([
    '127.0.0.1',
    '10.0.0.8',
    '172.16.4.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fd00:ec2::254',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
  ])('refuses %s', (address) => {
    expect(strict.addressViolation(address)).toEqual(expect.any(String));
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('allows the public address %s', (address) => {
    expect(strict.addressViolation(address)).toBeNull();
  });

  it('allows what the allowlist names: an address, a range, or a host name', () => {
    const policy = new OutboundAddressPolicy(['127.0.0.1', '10.20.0.0/16', 'Hooks.Internal']);
    expect(policy.addressViolation('127.0.0.1')).toBeNull();
    expect(policy.addressViolation('::ffff:127.0.0.1')).toBeNull();
    expect(policy.addressViolation('127.0.0.2')).toEqual(expect.any(String));
    expect(policy.addressViolation('10.20.3.4')).toBeNull();
    expect(policy.addressViolation('10.21.0.1')).toEqual(expect.any(String));
    expect(policy.isAllowedHost('hooks.internal')).toBe(true);
    expect(policy.urlViolation(new URL('https://hooks.internal/x'))).toBeNull();
  });

  it('judges URLs by their literal host: IPs and local names now, other names at connect time', () => {
    expect(strict.urlViolation(new URL('https://10.1.1.1/x'))).toEqual(expect.any(String));
    expect(strict.urlViolation(new URL('https://[::1]/x'))).toEqual(expect.any(String));
    expect(strict.urlViolation(new URL('https://localhost/x'))).toEqual(expect.any(String));
    expect(strict.urlViolation(new URL('https://api.localhost./x'))).toEqual(expect.any(String));
    expect(strict.urlViolation(new URL('https://hooks.example.com/x'))).toBeNull();
  });

  it('refuses garbage as an address', () => {
    expect(strict.addressViolation('not-an-ip')).toEqual(expect.any(String));
  });
});
