/** The highest TCP port: for the processor's health endpoint and the local stack's ports. */
export const MAX_PORT = 65_535;
