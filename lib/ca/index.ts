/** The CA rules layer: profiles, issuance, CA lifecycle, revocation, users, API serialisation. */
export * from './errors';
export * from './profiles';
export * from './serialize';
export * from './reasons';
export * from './records';
export * from './key-backends';
export * from './ca-facts';
export * from './extensions';
export * from './issuance';
export * from './sign-urls';
export * from './lookup';
export * from './subject';
export * from './authorities';
export * from './certificates';
export * from './users';
