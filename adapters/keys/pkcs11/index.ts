/** The PKCS#11 key backend (docs/operations/hsm.md); pkcs11js is loaded when one is constructed. */
export { pkcs11KeyBackend, PKCS11_KEY_BACKEND_ALIAS, type Pkcs11KeyBackend, type Pkcs11KeyBackendOptions } from './backend';
