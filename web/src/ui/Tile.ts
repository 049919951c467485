import styles from './ui.module.css';

/** A small square picture, or a letter standing in for it: avatars and app icons add their size and shape. */
export const tileClass = styles.tile;
