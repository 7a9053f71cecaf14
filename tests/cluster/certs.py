# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Certificates for the test control plane (the ``cryptography`` package, a dependency of ansible-core)."""
from __future__ import annotations

import datetime
import ipaddress
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _key():
    return ec.generate_private_key(ec.SECP256R1())


def _write_key(path, key):
    with open(path, 'wb') as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    os.chmod(path, 0o600)


def _write_cert(path, cert):
    with open(path, 'wb') as handle:
        handle.write(cert.public_bytes(serialization.Encoding.PEM))


def _name(common_name, organizations=()):
    attributes = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, org) for org in organizations]
    attributes.append(x509.NameAttribute(NameOID.COMMON_NAME, common_name))
    return x509.Name(attributes)


class CertificateAuthority:
    """A CA written to ``<directory>/ca.crt`` / ``ca.key`` that issues serving and client certificates."""

    def __init__(self, directory, common_name='numaops-test-ca', _loaded=None):
        self.directory = directory
        self.cert_path = os.path.join(directory, 'ca.crt')
        if _loaded:
            self.key, self.cert = _loaded
            self.name = self.cert.subject
            return
        self.key = _key()
        now = datetime.datetime.now(datetime.timezone.utc)
        self.name = _name(common_name)
        self.cert = (x509.CertificateBuilder().subject_name(self.name).issuer_name(self.name)
                     .public_key(self.key.public_key()).serial_number(x509.random_serial_number())
                     .not_valid_before(now - datetime.timedelta(minutes=5))
                     .not_valid_after(now + datetime.timedelta(days=2))
                     .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                     .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                                  content_commitment=False, key_encipherment=False,
                                                  data_encipherment=False, key_agreement=False,
                                                  encipher_only=False, decipher_only=False), critical=True)
                     .sign(self.key, hashes.SHA256()))
        _write_cert(self.cert_path, self.cert)
        _write_key(os.path.join(directory, 'ca.key'), self.key)

    @classmethod
    def load(cls, directory):
        """The CA an earlier ``CertificateAuthority(directory)`` wrote (to issue more from another process)."""
        with open(os.path.join(directory, 'ca.key'), 'rb') as handle:
            key = serialization.load_pem_private_key(handle.read(), password=None)
        with open(os.path.join(directory, 'ca.crt'), 'rb') as handle:
            cert = x509.load_pem_x509_certificate(handle.read())
        return cls(directory, _loaded=(key, cert))

    def issue(self, name, common_name, organizations=(), server=False, client=False, hosts=(), ips=()):
        """Write ``<name>.crt`` / ``<name>.key``; return their paths."""
        key = _key()
        now = datetime.datetime.now(datetime.timezone.utc)
        usages = ([ExtendedKeyUsageOID.SERVER_AUTH] if server else []) + ([ExtendedKeyUsageOID.CLIENT_AUTH] if client else [])
        builder = (x509.CertificateBuilder().subject_name(_name(common_name, organizations)).issuer_name(self.name)
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=2))
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                   .add_extension(x509.ExtendedKeyUsage(usages), critical=False))
        alt = [x509.DNSName(h) for h in hosts] + [x509.IPAddress(ipaddress.ip_address(i)) for i in ips]
        if alt:
            builder = builder.add_extension(x509.SubjectAlternativeName(alt), critical=False)
        cert = builder.sign(self.key, hashes.SHA256())
        cert_path = os.path.join(self.directory, name + '.crt')
        key_path = os.path.join(self.directory, name + '.key')
        _write_cert(cert_path, cert)
        _write_key(key_path, key)
        return cert_path, key_path


def service_account_keys(directory):
    """The key pair kube-apiserver signs (and verifies) service account tokens with; returns (key, pub) paths."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    key_path = os.path.join(directory, 'sa.key')
    pub_path = os.path.join(directory, 'sa.pub')
    with open(key_path, 'wb') as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                       serialization.NoEncryption()))
    os.chmod(key_path, 0o600)
    with open(pub_path, 'wb') as handle:
        handle.write(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                   serialization.PublicFormat.SubjectPublicKeyInfo))
    return key_path, pub_path
