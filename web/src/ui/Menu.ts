import styles from './ui.module.css';

/** Class names of every Radix menu, so all menus look and behave alike. */
export const menuClass = styles.menu;
export const menuItemClass = styles.menuItem;
